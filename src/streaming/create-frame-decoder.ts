import { AwsEventStreamDecoder } from './decode-aws-eventstream.js';
import { SseDecoder } from './decode-sse.js';
import type { FrameDecoder, StreamFraming } from './frame-decoder.js';

const decoderFactories: Record<StreamFraming, () => FrameDecoder> = {
  sse: () => new SseDecoder(),
  'aws-eventstream': () => new AwsEventStreamDecoder(),
};

export function createFrameDecoder(framing: StreamFraming): FrameDecoder {
  return decoderFactories[framing]();
}
