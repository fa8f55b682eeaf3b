/**
 * The scripted conversation every model server plays (README.md, "The scripted conversation"): what
 * the model says and which file it asks for, decided from the request itself. Each protocol module
 * reads its request into a ConversationView; decideTurn says what to answer.
 */

export interface ScriptOptions {
  /** The file the model asks the CLI to create, relative to the CLI's working directory. */
  fileName: string;
  fileContent: string;
  /** Text the model says before its tool call. */
  leadText: string;
  /** The final answer after the tool result came back. */
  finalText: string;
  /** Answer to side requests (no tools offered: titles, summaries, checks). */
  sideText: string;
  /**
   * The model repeats the credential the request carried in its text before the tool call, as a
   * model that was shown the key (an `env` dump, a config file) might: the CLI then prints the key,
   * and whoever shows that output must cut it.
   */
  echoCredential: boolean;
}

export const defaultScript: ScriptOptions = {
  fileName: 'hello.txt',
  fileContent: 'hello from the scripted model\n',
  leadText: 'I will create the file now.',
  finalText: 'Done: the file is written.',
  sideText: 'ok',
  echoCredential: false,
};

/**
 * A prompt chooses the file with "create the file <name>" (the last such phrase in the latest user
 * message wins), so a resumed second turn can ask for a different file than the first.
 */
export function fileNameFromPrompt(text: string, fallback: string): string {
  const matches = [...text.matchAll(/\bcreate the file ([A-Za-z0-9_][A-Za-z0-9_.-]*[A-Za-z0-9_])/gi)];
  return matches.at(-1)?.[1] ?? fallback;
}

/** The script's verdict for one model request. */
export type TurnDecision =
  | { type: 'tool_call'; fileName: string }
  | { type: 'final' }
  | { type: 'side' };

/** What the script needs to know about one conversation request, read by the protocol module. */
export interface ConversationView {
  /** Names of the tools the client offered. */
  toolNames: string[];
  /** The last item of the conversation: a user message, a tool result, or something else. */
  last: 'user' | 'tool_result' | 'other';
  /** The text of the latest user message (all its text parts). */
  latestUserText: string;
}

/**
 * The scripted conversation, the same for every protocol:
 *   no file-writing tool offered          → a side answer (titles, summaries, checks)
 *   the last item is a user message       → a short text and one tool call that creates the file
 *   otherwise (a tool result, ...)        → the final answer
 * So a run is: prompt → text + tool call → tool result → final answer. A resumed turn (a new user
 * message after the first turn's history) asks for a tool call again, for the file its prompt names.
 */
export function decideTurn(view: ConversationView, fileTool: string | null, script: ScriptOptions): TurnDecision {
  if (fileTool === null) return { type: 'side' };
  // Only a fresh user message gets a tool call, so no client can be led into a loop.
  if (view.last !== 'user') return { type: 'final' };
  return { type: 'tool_call', fileName: fileNameFromPrompt(view.latestUserText, script.fileName) };
}

/** The first of `preferred` that the client offered. */
export function pickTool(toolNames: readonly string[], preferred: readonly string[]): string | null {
  return preferred.find((name) => toolNames.includes(name)) ?? null;
}

/** The conversation a request carries, flattened (for asserting that a resumed turn sent its history). */
export interface ConversationHistory {
  userTexts: string[];
  assistantTexts: string[];
  /** Tool results the client sent back, as text. */
  toolResults: string[];
}
