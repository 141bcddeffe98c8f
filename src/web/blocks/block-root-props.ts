import type { Block } from '../../protocol/index.ts';

/**
 * The attributes every block's root element carries: its kind and status for styling, and the
 * `data-*` names the browser tests compare before and after a refresh. One place, so every kind
 * renders them the same way.
 */
export function blockRootProps(block: Block) {
  return {
    className: `block block-${block.kind}`,
    'data-testid': 'block',
    'data-kind': block.kind,
    'data-status': block.status,
    'data-block-id': block.blockId,
  };
}
