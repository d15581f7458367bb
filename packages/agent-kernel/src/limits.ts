/** Model calls per turn when the agent's policy names none (`conversationPolicy.maxSteps`). */
export const DEFAULT_MAX_STEPS = 16;
/** Tool calls per turn when the agent's policy names none (`conversationPolicy.maxToolCalls`). */
export const DEFAULT_MAX_TOOL_CALLS = 64;
/** The longest user message a turn takes, in UTF-16 code units. */
export const MAX_MESSAGE_CHARS = 100_000;
/** The most messages a turn's `conversation` may hold. */
export const MAX_CONVERSATION_MESSAGES = 500;
/** The most characters of a conversation (every message's text and tool arguments). */
export const MAX_CONVERSATION_CHARS = 2_000_000;
/** A tool result longer than this reaches the model cut, with a note saying so. */
export const MAX_TOOL_RESULT_CHARS = 100_000;
/** The effects that stop a dry run, whatever `mutating` says. */
export const DRY_RUN_STOPPING_EFFECTS = ['writes', 'deletes', 'spawns-run', 'emits-event', 'external-side-effect'];
