import { describe, expect, it } from 'vitest';
import { documentsNamedBy, namingIdentifiers } from './document-names.ts';

const names = (sourcePath: string, title = '') => [...namingIdentifiers({ sourcePath, title })].sort();

describe('the identifiers that name a document', () => {
  it('reads them in the title', () => {
    expect(names('policies/returns.md', '退货规则（FM-POL-RTN-01）')).toEqual(['FM-POL-RTN-01']);
  });

  it('finds a code in a file name whatever separates it from the rest of the name', () => {
    for (const path of [
      'products/shrimp-FM-SEA-0508.md',
      'products/milk.FM-SEA-0508.md',
      'products/FM-SEA-0508.v2.md',
      'products/milk FM-SEA-0508.md',
      'products/鲜牛奶FM-SEA-0508.md',
      'products/milk_FM-SEA-0508.txt',
      'products\\fm-sea-0508.md',
    ])
      expect(names(path), path).toContain('FM-SEA-0508');
  });

  it('does not take the folder or the extension for a code, nor a code the name does not hold', () => {
    expect(names('DEV-FRESHMART/products/milk.md')).toEqual([]);
    expect(names('products/shrimp-FM-SEA-0508.md')).not.toContain('FM-SEA-0509');
    expect(names('products/shrimp-FM-SEA-0508.md')).not.toContain('FM-SEA-05');
  });

  it('maps each identifier to every document it names', () => {
    const named = documentsNamedBy([
      {
        docId: 'a',
        sourcePath: 'a/shrimp-FM-SEA-0508.md',
        title: '虾',
      },
      {
        docId: 'b',
        sourcePath: 'b/returns.md',
        title: '退货（FM-SEA-0508 适用）',
      },
      {
        docId: 'c',
        sourcePath: 'c/faq.md',
        title: '常见问题',
      },
    ]);
    expect([...(named.get('FM-SEA-0508') ?? [])].sort()).toEqual(['a', 'b']);
    expect([...named.values()].some((docIds) => docIds.has('c'))).toBe(false);
  });
});
