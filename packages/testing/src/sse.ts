/** One Server-Sent Events frame, or a comment line (`: keep-alive`). */
export interface SseFrame {
  id?: string;
  event?: string;
  data?: string;
  /** Comment lines in the frame, without the leading colon. */
  comments: string[];
}

/** Parses complete SSE frames (separated by a blank line); a trailing partial frame is returned as `rest`. */
export function parseSseFrames(text: string): { frames: SseFrame[]; rest: string } {
  const normalised = text.replace(/\r\n?/g, '\n');
  const blocks = normalised.split('\n\n');
  const rest = blocks.pop() ?? '';
  const frames = blocks
    .filter((block) => block !== '')
    .map((block) => {
      const frame: SseFrame = { comments: [] };
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith(':')) {
          frame.comments.push(line.slice(1).trim());
          continue;
        }
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (field === 'id') frame.id = value;
        else if (field === 'event') frame.event = value;
        else if (field === 'data') data.push(value);
      }
      if (data.length > 0) frame.data = data.join('\n');
      return frame;
    });
  return { frames, rest };
}

/**
 * Reads an SSE response until `stop(frames)` is true or the stream ends, then cancels it. Waits on the
 * stream itself, never on a timer.
 */
export async function readSse(
  response: Response,
  stop: (frames: SseFrame[]) => boolean = () => false,
): Promise<{ frames: SseFrame[]; ended: boolean }> {
  if (response.body === null) return { frames: [], ended: true };
  const reader = response.body.getReader();
  const decoder = new TextDecoder();
  const frames: SseFrame[] = [];
  let buffer = '';
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { frames, ended: true };
    buffer += decoder.decode(value, { stream: true });
    const parsed = parseSseFrames(buffer);
    buffer = parsed.rest;
    frames.push(...parsed.frames);
    if (stop(frames)) {
      await reader.cancel();
      return { frames, ended: false };
    }
  }
}
