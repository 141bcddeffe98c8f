import type { Block } from '../../protocol/index.ts';
import { joinClassNames, type RunstreamClassNames } from './class-names.ts';

const KIND_CLASS: Record<Block['kind'], keyof RunstreamClassNames> = {
  reasoning: 'reasoningBlock',
  answer: 'answerBlock',
  error: 'errorBlock',
  tool: 'toolBlock',
  confirm: 'confirmBlock',
};

/**
 * The attributes every block's root element carries: its classes, its kind and status for styling,
 * and the `data-*` names the browser tests compare before and after a refresh. One place, so every
 * kind renders them the same way.
 */
export function blockRootProps(block: Block, classNames: RunstreamClassNames, className?: string) {
  return {
    className: joinClassNames(classNames.block, classNames[KIND_CLASS[block.kind]], className),
    'data-testid': 'block',
    'data-kind': block.kind,
    'data-status': block.status,
    'data-block-id': block.blockId,
  };
}
