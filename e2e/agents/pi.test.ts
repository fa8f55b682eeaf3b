import { describeAgent } from './agent-suite';

// Pi 0.73.1: a custom OpenAI-compatible provider in PI_CODING_AGENT_DIR/models.json, the key from an env var.
describeAgent('pi', {
  keyHeader: 'authorization',
  keyValue: (key) => `Bearer ${key}`,
  workEvents: ['tool_call', 'tool_result', 'file_change'],
  sessionState: /^sessions\/.+\.jsonl$/,
  // Pi exits 0 when the model call failed; the failure is only in its JSON stream.
  exitOn401: 0,
  resetObserved: true,
  recoversFromOneDrop: false,
});
