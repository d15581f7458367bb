import { describe, expect, it } from 'vitest';
import * as surface from '../src/index.js';

// The package's runtime exports, by name: adding, renaming or removing one must show up in review.
describe('@kindgi/agent-kernel public surface', () => {
  it('exports exactly these names', () => {
    expect(Object.keys(surface).sort()).toEqual([
      'AGENT_TURN_ERROR_CODES',
      'DEFAULT_MAX_STEPS',
      'DEFAULT_MAX_TOOL_CALLS',
      'DEFAULT_MODEL_RETRIES',
      'DEFAULT_MODEL_TIMEOUT_MS',
      'DRY_RUN_STOPPING_EFFECTS',
      'FUNCTION_NAME_PATTERN',
      'MAX_CONVERSATION_CHARS',
      'MAX_CONVERSATION_MESSAGES',
      'MAX_MESSAGE_CHARS',
      'MAX_TOOL_RESULT_CHARS',
      'createModelCatalog',
      'createOpenAiCompatibleModel',
      'createToolNameMap',
      'inScope',
      'modelEntrySchema',
      'modelsConfigSchema',
      'resumeAgentTurn',
      'runAgentTurn',
      'turnTrace',
    ]);
  });
});
