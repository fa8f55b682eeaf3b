import { afterEach, describe, expect, test } from 'vitest';
import type { ModelServer, WireProtocol } from './index';
import { conversationOf, fileNameFromPrompt, startEgressCanary, startModelServer } from './index';
import { addFilePatch } from './openai-responses';

/**
 * The scripted servers on their own, spoken to with plain fetch (no CLI): the stream formats, the
 * scripted turns, the failures and the recording. Fast; the real CLIs are in ../*.test.ts.
 */

const servers: ModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()));
});

async function start(protocol: WireProtocol, options: Parameters<typeof startModelServer>[1] = {}): Promise<ModelServer> {
  const server = await startModelServer(protocol, options);
  servers.push(server);
  return server;
}

interface SseEvent {
  event: string | null;
  data: string;
}

// The parts of each wire format these tests read (the servers' own types describe what they send).
type ResponsesItem = { type: string; name?: string; input?: string; call_id?: string; content?: Array<{ text: string }> };
type ResponsesEvent = { type: string; delta?: string; response: { usage: unknown; output: ResponsesItem[] } };
type ChatChunk = {
  object: string;
  choices: Array<{ finish_reason?: string | null; delta?: { content?: string; tool_calls?: Array<{ id: string; function: { arguments: string } }> } }>;
};
type AnthropicEvent = { index?: number; delta?: { type: string; partial_json?: string } };
type GeminiChunk = { candidates: Array<{ content: { parts: Array<{ text?: string; functionCall?: unknown }> } }> };

function parseSse(text: string): SseEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== '')
    .map((block) => {
      const lines = block.split(/\r?\n/);
      const event = lines.find((line) => line.startsWith('event: '))?.slice(7) ?? null;
      const data = lines
        .filter((line) => line.startsWith('data: '))
        .map((line) => line.slice(6))
        .join('\n');
      return { event, data };
    });
}

async function post(url: string, body: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: JSON.stringify(body) });
  return { response, text: await response.text() };
}

describe('OpenAI Responses', () => {
  const tools = [
    { type: 'function', name: 'exec_command', parameters: { type: 'object' } },
    { type: 'custom', name: 'apply_patch', format: { type: 'grammar' } },
  ];

  test('turn 1 streams text and an apply_patch custom tool call; the tool output gets the final answer', async () => {
    const server = await start('openai-responses');
    const input = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Please create the file notes.md now' }] }];
    const first = await post(`${server.baseUrl}/responses`, { model: 'gpt-5.5', stream: true, input, tools }, { authorization: 'Bearer sk-one' });
    expect(first.response.headers.get('content-type')).toContain('text/event-stream');
    const events = parseSse(first.text);
    const types = events.map((event) => event.event);
    expect(types[0]).toBe('response.created');
    expect(types).toEqual(expect.arrayContaining(['response.output_item.added', 'response.output_text.delta', 'response.custom_tool_call_input.delta', 'response.custom_tool_call_input.done', 'response.output_item.done']));
    expect(types.at(-1)).toBe('response.completed');
    for (const event of events) expect((JSON.parse(event.data) as ResponsesEvent).type).toBe(event.event);
    const completed = JSON.parse(events.at(-1)?.data ?? '{}') as ResponsesEvent;
    expect(completed.response.usage).toMatchObject({ input_tokens: expect.any(Number), output_tokens: expect.any(Number), total_tokens: expect.any(Number) });
    const call = completed.response.output.find((item) => item.type === 'custom_tool_call');
    expect(call?.input).toBe(addFilePatch('notes.md', server.script.fileContent));

    const second = await post(`${server.baseUrl}/responses`, {
      model: 'gpt-5.5',
      stream: true,
      tools,
      input: [...input, call, { type: 'custom_tool_call_output', call_id: call?.call_id, output: 'Success' }],
    });
    const text = parseSse(second.text)
      .filter((event) => event.event === 'response.output_text.delta')
      .map((event) => (JSON.parse(event.data) as ResponsesEvent).delta)
      .join('');
    expect(text).toBe(server.script.finalText);
    expect(server.modelRequests().map((request) => request.outcome)).toEqual([{ type: 'tool_call', tool: 'apply_patch', fileName: 'notes.md' }, { type: 'final' }]);
    expect(server.requests[0]?.headers.authorization).toBe('Bearer sk-one');
    expect(conversationOf('openai-responses', server.requests[1]?.body)).toMatchObject({ toolResults: ['Success'] });
  });

  test('a function tool streams function_call_arguments deltas; code mode (`exec` in additional_tools) gets JavaScript', async () => {
    const server = await start('openai-responses', { fileTool: 'exec_command' });
    const input = [{ type: 'message', role: 'user', content: 'go' }];
    const events = parseSse((await post(`${server.baseUrl}/responses`, { stream: true, input, tools })).text);
    const args = events.filter((event) => event.event === 'response.function_call_arguments.delta').map((event) => (JSON.parse(event.data) as ResponsesEvent).delta);
    expect(args.length).toBeGreaterThan(1);
    expect(JSON.parse(args.join(''))).toMatchObject({ cmd: expect.stringContaining("cat > 'hello.txt'") });
    expect(events.map((event) => event.event)).toContain('response.function_call_arguments.done');

    const codeMode = await start('openai-responses');
    const additional = { type: 'additional_tools', tools: [{ type: 'namespace', name: 'functions', tools: [{ type: 'custom', name: 'exec' }] }] };
    const done = parseSse((await post(`${codeMode.baseUrl}/responses`, { stream: true, input: [additional, ...input] })).text).at(-1);
    const item = (JSON.parse(done?.data ?? '{}') as ResponsesEvent).response.output[1];
    expect(item).toMatchObject({ type: 'custom_tool_call', name: 'exec' });
    expect(item?.input).toContain('await tools.apply_patch(');
  });

  test('GET /v1/models, and a request without tools gets a side answer', async () => {
    const server = await start('openai-responses');
    const models = await (await fetch(`${server.baseUrl}/models`)).json();
    expect(models).toMatchObject({ object: 'list', data: [{ id: 'gpt-5.5', object: 'model' }] });
    const answer = JSON.parse((await post(`${server.baseUrl}/responses`, { input: 'title?' })).text) as ResponsesEvent['response'];
    expect(answer.output[0]?.content?.[0]?.text).toBe(server.script.sideText);
  });
});

describe('OpenAI Chat Completions', () => {
  const tools = [{ type: 'function', function: { name: 'write', parameters: { type: 'object' } } }];

  test('streams delta.content, delta.tool_calls (id and name, then arguments), finish_reason, usage and [DONE]', async () => {
    const server = await start('openai-chat');
    const messages = [
      { role: 'system', content: 'be brief' },
      { role: 'user', content: 'create the file a.txt' },
    ];
    const { text } = await post(`${server.baseUrl}/chat/completions`, { model: 'm', stream: true, stream_options: { include_usage: true }, messages, tools });
    const events = parseSse(text);
    expect(events.at(-1)?.data).toBe('[DONE]');
    const chunks = events.slice(0, -1).map((event) => JSON.parse(event.data) as ChatChunk);
    expect(chunks.every((chunk) => chunk.object === 'chat.completion.chunk')).toBe(true);
    const content = chunks.map((chunk) => chunk.choices[0]?.delta?.content ?? '').join('');
    expect(content).toBe(server.script.leadText);
    const toolDeltas = chunks.flatMap((chunk) => chunk.choices[0]?.delta?.tool_calls ?? []);
    expect(toolDeltas[0]).toMatchObject({ index: 0, id: expect.stringMatching(/^call_/), type: 'function', function: { name: 'write', arguments: '' } });
    expect(JSON.parse(toolDeltas.map((delta) => delta.function.arguments).join(''))).toEqual({ path: 'a.txt', content: server.script.fileContent });
    expect(chunks.find((chunk) => chunk.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('tool_calls');
    expect(chunks.at(-1)).toMatchObject({ choices: [], usage: { prompt_tokens: expect.any(Number), completion_tokens: expect.any(Number) } });

    const followUp = [...messages, { role: 'assistant', content: null, tool_calls: [toolDeltas[0]] }, { role: 'tool', tool_call_id: toolDeltas[0]?.id, content: 'ok' }];
    const final = JSON.parse((await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: followUp, tools })).text) as { choices: unknown[] };
    expect(final.choices[0]).toMatchObject({ finish_reason: 'stop', message: { role: 'assistant', content: server.script.finalText } });
  });
});

describe('Anthropic Messages', () => {
  const tools = [{ name: 'Write', input_schema: { type: 'object' } }];

  test('streams message_start … message_stop with text_delta and input_json_delta; Write gets an absolute path', async () => {
    const server = await start('anthropic-messages');
    const body = {
      model: 'claude-sonnet-4-6',
      stream: true,
      system: [{ type: 'text', text: 'Environment\n - Primary working directory: /work/view\n - Platform: linux' }],
      messages: [{ role: 'user', content: [{ type: 'text', text: '<system-reminder>x</system-reminder>' }, { type: 'text', text: 'go' }] }],
      tools,
    };
    const { response, text } = await post(`${server.origin}/v1/messages?beta=true`, body, { 'x-api-key': 'sk-ant' });
    expect(response.headers.get('request-id')).toMatch(/^req_/);
    const events = parseSse(text);
    expect(events.map((event) => event.event)).toEqual([
      'message_start',
      'ping',
      'content_block_start',
      ...events.filter((event) => event.event === 'content_block_delta' && (JSON.parse(event.data) as AnthropicEvent).index === 0).map(() => 'content_block_delta'),
      'content_block_stop',
      'content_block_start',
      ...events.filter((event) => event.event === 'content_block_delta' && (JSON.parse(event.data) as AnthropicEvent).index === 1).map(() => 'content_block_delta'),
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const json = events
      .map((event) => JSON.parse(event.data) as AnthropicEvent)
      .filter((event) => event.delta?.type === 'input_json_delta')
      .map((event) => event.delta?.partial_json ?? '')
      .join('');
    expect(JSON.parse(json)).toEqual({ file_path: '/work/view/hello.txt', content: server.script.fileContent });
    expect(JSON.parse(events.find((event) => event.event === 'message_delta')?.data ?? '{}')).toMatchObject({ delta: { stop_reason: 'tool_use' }, usage: { output_tokens: expect.any(Number) } });
    expect(server.requests[0]?.query).toEqual({ beta: 'true' });
    expect(server.requests[0]?.headers['x-api-key']).toBe('sk-ant');
  });

  test('HEAD / and count_tokens are answered and recorded as other requests', async () => {
    const server = await start('anthropic-messages');
    expect((await fetch(`${server.origin}/`, { method: 'HEAD' })).status).toBe(200);
    const count = JSON.parse((await post(`${server.origin}/v1/messages/count_tokens`, { messages: [] })).text) as { input_tokens: number };
    expect(count.input_tokens).toBeGreaterThan(0);
    expect(server.requests.map((request) => request.kind)).toEqual(['other', 'other']);
    expect(server.modelRequests()).toEqual([]);
  });
});

describe('Gemini generateContent', () => {
  const tools = [{ functionDeclarations: [{ name: 'write_file', parametersJsonSchema: { type: 'object' } }] }];

  test('streamGenerateContent?alt=sse sends text chunks, a functionCall, finishReason and usageMetadata', async () => {
    const server = await start('gemini');
    const body = { contents: [{ role: 'user', parts: [{ text: 'create the file g.txt' }] }], tools };
    const { text } = await post(`${server.origin}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, body, { 'x-goog-api-key': 'AIza-test' });
    const chunks = parseSse(text).map((event) => JSON.parse(event.data) as GeminiChunk);
    const parts = chunks.flatMap((chunk) => chunk.candidates[0]?.content.parts ?? []);
    expect(parts.filter((part) => part.text).map((part) => part.text).join('')).toBe(server.script.leadText);
    expect(parts.find((part) => part.functionCall)?.functionCall).toEqual({ name: 'write_file', args: { file_path: 'g.txt', content: server.script.fileContent } });
    expect(chunks.at(-1)).toMatchObject({ candidates: [{ finishReason: 'STOP' }], usageMetadata: { promptTokenCount: expect.any(Number), candidatesTokenCount: expect.any(Number) } });
    expect(server.requests[0]?.headers['x-goog-api-key']).toBe('AIza-test');

    const after = { contents: [...body.contents, { role: 'model', parts }, { role: 'user', parts: [{ functionResponse: { name: 'write_file', response: { output: 'ok' } } }] }], tools };
    const final = parseSse((await post(`${server.origin}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, after)).text).map((event) => JSON.parse(event.data) as GeminiChunk);
    expect(final.flatMap((chunk) => chunk.candidates[0]?.content.parts.map((part) => part.text ?? '') ?? []).join('')).toBe(server.script.finalText);
  });

  test('a JSON-schema side request gets JSON that says the user speaks next; countTokens and models answer', async () => {
    const server = await start('gemini');
    const schema = { type: 'object', properties: { reasoning: { type: 'string' }, next_speaker: { type: 'string', enum: ['model', 'user'] } } };
    const { text } = await post(`${server.origin}/v1beta/models/gemini-2.5-flash:generateContent`, {
      contents: [{ role: 'user', parts: [{ text: 'who speaks next?' }] }],
      generationConfig: { responseMimeType: 'application/json', responseJsonSchema: schema },
    });
    expect(JSON.parse((JSON.parse(text) as GeminiChunk).candidates[0]?.content.parts[0]?.text ?? '')).toEqual({ reasoning: 'scripted', next_speaker: 'user' });
    expect(JSON.parse((await post(`${server.origin}/v1beta/models/gemini-2.5-pro:countTokens`, {})).text)).toHaveProperty('totalTokens');
    const models = (await (await fetch(`${server.origin}/v1beta/models`)).json()) as { models: Array<{ name: string }> };
    expect(models.models[0]?.name).toBe('models/gemini-2.5-pro');
  });
});

describe('scripted failures', () => {
  const cases: Array<{ protocol: WireProtocol; path: string; body: unknown }> = [
    { protocol: 'openai-responses', path: '/v1/responses', body: { stream: true, input: 'hi' } },
    { protocol: 'openai-chat', path: '/v1/chat/completions', body: { stream: true, messages: [{ role: 'user', content: 'hi' }] } },
    { protocol: 'anthropic-messages', path: '/v1/messages', body: { stream: true, messages: [{ role: 'user', content: 'hi' }] } },
    { protocol: 'gemini', path: '/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse', body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] } },
  ];

  test.each(cases)('$protocol: 401 with the provider body, 429 with Retry-After and the provider reset hint, then the script again', async ({ protocol, path, body }) => {
    const server = await start(protocol, { failure: { mode: 'unauthorized', count: 1 } });
    const unauthorized = await post(`${server.origin}${path}`, body, { authorization: 'Bearer sk-secret-0123456789' });
    expect(unauthorized.response.status).toBe(401);
    const error = JSON.parse(unauthorized.text) as { error?: unknown };
    expect(error.error).toBeTruthy();
    expect(unauthorized.text).not.toContain('sk-secret-0123456789');

    server.setFailure({ mode: 'rate_limited', retryAfterSeconds: 42 });
    const limited = await post(`${server.origin}${path}`, body);
    expect(limited.response.status).toBe(429);
    expect(limited.response.headers.get('retry-after')).toBe('42');
    if (protocol === 'anthropic-messages') {
      // Anthropic states the reset only in headers (RFC 3339), not in the message.
      const reset = Date.parse(limited.response.headers.get('anthropic-ratelimit-requests-reset') ?? '');
      expect(Math.abs(reset - (Date.now() + 42_000))).toBeLessThan(3000);
    } else expect(limited.text).toMatch(/\b42(\.5)?s\b/);

    server.setFailure({ mode: 'rate_limited', count: 1 });
    expect((await post(`${server.origin}${path}`, body)).response.status).toBe(429);
    expect((await post(`${server.origin}${path}`, body)).response.status).toBe(200);
    expect(server.modelRequests().map((request) => request.outcome.type)).toEqual(['failure', 'failure', 'failure', 'side']);
  });

  test.each(cases)('$protocol: a dropped stream ends the body early', async ({ protocol, path, body }) => {
    const server = await start(protocol, { failure: { mode: 'drop_stream' } });
    const response = await fetch(`${server.origin}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect(response.status).toBe(200);
    await expect(response.text()).rejects.toThrow();
    expect(server.modelRequests()[0]?.outcome).toEqual({ type: 'failure', mode: 'drop_stream', status: 200 });
  });

  test('Gemini: invalid_api_key is the real HTTP 400 API_KEY_INVALID', async () => {
    const server = await start('gemini', { failure: { mode: 'invalid_api_key' } });
    const { response, text } = await post(`${server.origin}/v1beta/models/m:generateContent`, {});
    expect(response.status).toBe(400);
    expect((JSON.parse(text) as { error: { details: Array<{ reason: string }> } }).error.details[0]?.reason).toBe('API_KEY_INVALID');
  });
});

describe('reported usage', () => {
  const prompt = 'Please create the file u.txt';
  /** One streamed model request in each protocol, and the usage its answer carried in its own wire shape, normalized. */
  const wire: Record<WireProtocol, (server: ModelServer) => Promise<{ input: number; cachedInput: number; output: number; reasoning: number }>> = {
    'openai-responses': async (server) => {
      const body = { model: 'gpt-5.5', stream: true, input: [{ type: 'message', role: 'user', content: prompt }], tools: [{ type: 'custom', name: 'apply_patch' }] };
      const events = parseSse((await post(`${server.baseUrl}/responses`, body)).text);
      const usage = (JSON.parse(events.at(-1)?.data ?? '{}') as { response: { usage: Record<string, number> & { input_tokens_details: { cached_tokens: number }; output_tokens_details: { reasoning_tokens: number } } } }).response.usage;
      return { input: usage.input_tokens!, cachedInput: usage.input_tokens_details.cached_tokens, output: usage.output_tokens!, reasoning: usage.output_tokens_details.reasoning_tokens };
    },
    'openai-chat': async (server) => {
      const body = { model: 'm', stream: true, stream_options: { include_usage: true }, messages: [{ role: 'user', content: prompt }], tools: [{ type: 'function', function: { name: 'write' } }] };
      const chunks = parseSse((await post(`${server.baseUrl}/chat/completions`, body)).text).filter((event) => event.data !== '[DONE]');
      const usage = (JSON.parse(chunks.at(-1)?.data ?? '{}') as { usage: { prompt_tokens: number; completion_tokens: number; prompt_tokens_details: { cached_tokens: number }; completion_tokens_details: { reasoning_tokens: number } } }).usage;
      return { input: usage.prompt_tokens, cachedInput: usage.prompt_tokens_details.cached_tokens, output: usage.completion_tokens, reasoning: usage.completion_tokens_details.reasoning_tokens };
    },
    'anthropic-messages': async (server) => {
      const body = { model: 'claude-sonnet-4-6', stream: true, messages: [{ role: 'user', content: prompt }], tools: [{ name: 'Write' }] };
      const events = parseSse((await post(`${server.origin}/v1/messages`, body)).text);
      const start = (JSON.parse(events.find((event) => event.event === 'message_start')?.data ?? '{}') as { message: { usage: Record<string, number> } }).message.usage;
      const delta = (JSON.parse(events.find((event) => event.event === 'message_delta')?.data ?? '{}') as { usage: { output_tokens: number } }).usage;
      // Anthropic's input_tokens leaves out the cache reads and writes.
      return { input: start.input_tokens! + start.cache_read_input_tokens! + start.cache_creation_input_tokens!, cachedInput: start.cache_read_input_tokens!, output: delta.output_tokens, reasoning: 0 };
    },
    gemini: async (server) => {
      const body = { contents: [{ role: 'user', parts: [{ text: prompt }] }], tools: [{ functionDeclarations: [{ name: 'write_file' }] }] };
      const chunks = parseSse((await post(`${server.origin}/v1beta/models/gemini-2.5-pro:streamGenerateContent?alt=sse`, body)).text);
      const usage = (JSON.parse(chunks.at(-1)?.data ?? '{}') as { usageMetadata: Record<string, number> }).usageMetadata;
      // Gemini's candidates leave out the thoughts; the prompt includes the cached tokens.
      return { input: usage.promptTokenCount!, cachedInput: usage.cachedContentTokenCount!, output: usage.candidatesTokenCount! + usage.thoughtsTokenCount!, reasoning: usage.thoughtsTokenCount! };
    },
  };

  for (const protocol of Object.keys(wire) as WireProtocol[]) {
    test(`${protocol}: each answer's usage differs, and the request records it normalized`, async () => {
      const server = await start(protocol);
      const first = await wire[protocol](server);
      const second = await wire[protocol](server);
      const recorded = server.modelRequests().map((request) => request.usage && { input: request.usage.input, cachedInput: request.usage.cachedInput, output: request.usage.output, reasoning: request.usage.reasoning });
      expect(recorded).toEqual([first, second]);
      // No two requests report the same numbers: a running total and a per-call report cannot be mistaken.
      expect(second.input).not.toBe(first.input);
      expect(second.cachedInput).not.toBe(first.cachedInput);
      expect(second.output).not.toBe(first.output);
      expect(first.cachedInput).toBeLessThan(first.input);
      if (protocol !== 'anthropic-messages') expect(second.reasoning).not.toBe(first.reasoning);
    });
  }

  test('a failed request reports no usage', async () => {
    const server = await start('openai-chat', { failure: { mode: 'unauthorized' } });
    await post(`${server.baseUrl}/chat/completions`, { model: 'm', messages: [{ role: 'user', content: prompt }] });
    expect(server.modelRequests().map((request) => request.usage)).toEqual([null]);
  });
});

describe('helpers', () => {
  test('the prompt names the file with "create the file <name>"', () => {
    expect(fileNameFromPrompt('Please create the file hello.txt.', 'x')).toBe('hello.txt');
    expect(fileNameFromPrompt('create the file a.md, then create the file b_2.txt', 'x')).toBe('b_2.txt');
    expect(fileNameFromPrompt('no file here', 'fallback.txt')).toBe('fallback.txt');
    expect(fileNameFromPrompt('create the file ../escape', 'fallback.txt')).toBe('fallback.txt');
  });

  test('the egress canary refuses and records CONNECT and proxied requests', async () => {
    const canary = await startEgressCanary();
    const net = await import('node:net');
    const reply = await new Promise<string>((resolve, reject) => {
      const socket = net.connect(Number(new URL(canary.url).port), '127.0.0.1', () => socket.write('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'));
      socket.once('data', (data) => {
        resolve(data.toString());
        socket.destroy();
      });
      socket.once('error', reject);
    });
    expect(reply).toMatch(/^HTTP\/1\.1 403/);
    expect(canary.attempts).toEqual([expect.objectContaining({ method: 'CONNECT', target: 'example.com:443' })]);
    await canary.close();
  });
});
