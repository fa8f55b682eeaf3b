import { describe, expect, it } from 'vitest';
import type { UsageRow } from './usage';
import { usageCsv, usageCsvFileName } from './usage-csv';

function row(overrides: Partial<UsageRow> = {}): UsageRow {
  return {
    day: '2026-03-02',
    runId: 'run_1',
    attemptNumber: 1,
    taskId: 'tsk_1',
    taskTitle: 'Plan the refund flow',
    projectId: 'prj_1',
    projectName: 'checkout',
    agentId: 'agt_1',
    agentName: 'Codex fast',
    connectionId: 'con_1',
    connectionName: 'Team key',
    providerId: 'codex',
    model: 'gpt-5',
    billing: 'api_key',
    tokens: { input: 1234, output: 567, cachedInput: 200, reasoning: 100 },
    cost: { amount: 0.0071525, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 },
    ...overrides,
  };
}

const lines = (csv: string) => csv.split('\r\n');

describe('the Usage CSV', () => {
  it('has a header naming the cost an estimate, and one CRLF-ended line per attempt', () => {
    const csv = usageCsv([row(), row({ runId: 'run_2', attemptNumber: 2, cost: { amount: 2.25, currency: 'USD', basis: 'priced', unpricedModels: [], unpricedTokens: 0 } })]);
    expect(lines(csv)).toEqual([
      'Day,Run,Attempt,Task,Project,Agent,Connection,Provider,Model,Billing,Input tokens,Cached input tokens,Output tokens,Reasoning tokens,"Estimated cost (USD, estimate)",Cost note',
      '2026-03-02,run_1,1,Plan the refund flow,checkout,Codex fast,Team key,codex,gpt-5,API key,1234,200,567,100,0.007153,',
      '2026-03-02,run_2,2,Plan the refund flow,checkout,Codex fast,Team key,codex,gpt-5,API key,1234,200,567,100,2.25,',
      '',
    ]);
  });

  it('is only the header when there is nothing in the range', () => {
    expect(usageCsv([])).toBe(
      'Day,Run,Attempt,Task,Project,Agent,Connection,Provider,Model,Billing,Input tokens,Cached input tokens,Output tokens,Reasoning tokens,"Estimated cost (USD, estimate)",Cost note\r\n',
    );
  });

  it('leaves the cost empty for a subscription and an unpriced model, and says why', () => {
    const csv = usageCsv([
      row({ billing: 'subscription', connectionName: 'Max plan', cost: { amount: null, currency: 'USD', basis: 'subscription', unpricedModels: [], unpricedTokens: 0 } }),
      row({ model: 'gpt-9', connectionId: null, connectionName: null, billing: 'operator_login', cost: { amount: null, currency: 'USD', basis: 'unpriced', unpricedModels: ['gpt-9 (openai)'], unpricedTokens: 1801 } }),
    ]);
    expect(lines(csv).slice(1, 3)).toEqual([
      '2026-03-02,run_1,1,Plan the refund flow,checkout,Codex fast,Max plan,codex,gpt-5,Subscription,1234,200,567,100,,"Subscription: tokens only, no cost"',
      '2026-03-02,run_1,1,Plan the refund flow,checkout,Codex fast,Own login (no connection),codex,gpt-9,Own login,1234,200,567,100,,No price for gpt-9 (openai)',
    ]);
  });

  it('quotes commas, quotes and line breaks (RFC 4180), keeping the text as it was', () => {
    const csv = usageCsv([row({ taskTitle: 'Fix "rounding", then\nship', agentName: 'Résumé ✓' })]);
    // The line break inside the title is the field's, inside its quotes; records end in CRLF.
    expect(lines(csv)).toHaveLength(3);
    expect(lines(csv)[1]).toBe('2026-03-02,run_1,1,"Fix ""rounding"", then\nship",checkout,Résumé ✓,Team key,codex,gpt-5,API key,1234,200,567,100,0.007153,');
  });

  it('never lets a spreadsheet read a cell as a formula', () => {
    const csv = usageCsv([
      row({ taskTitle: '=HYPERLINK("http://evil.example","click")', agentName: '+1', connectionName: '-2+3', projectName: '@SUM(A1)', model: '\tgpt' }),
    ]);
    expect(lines(csv)[1]).toBe(
      `2026-03-02,run_1,1,"'=HYPERLINK(""http://evil.example"",""click"")",'@SUM(A1),'+1,'-2+3,codex,'\tgpt,API key,1234,200,567,100,0.007153,`,
    );
    // A formula character later in the text is plain text.
    expect(lines(usageCsv([row({ taskTitle: 'a=b+c' })]))[1]).toContain(',a=b+c,');
  });

  it('is named for its range', () => {
    expect(usageCsvFileName('2026-03-01', '2026-03-31')).toBe('usage-2026-03-01-to-2026-03-31.csv');
  });
});
