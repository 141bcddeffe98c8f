import { describe, expect, it } from 'vitest';
import { fillTemplate } from './card-template.ts';

describe('fillTemplate', () => {
  const input = { serialNumber: 'SN1', address: { city: '杭州' }, count: 2, tags: ['a'], empty: null };

  it('fills {field} and {a.b} from the input, non-text values as JSON, the rest as written', () => {
    expect(fillTemplate('序列号 {serialNumber}，{address.city}，{count} 台，{tags}', input)).toEqual({
      text: '序列号 SN1，杭州，2 台，["a"]',
      empty: false,
    });
    expect(fillTemplate('no placeholders {', input)).toEqual({ text: 'no placeholders {', empty: false });
  });

  it('fills a missing value with nothing, and says when every placeholder was missing', () => {
    expect(fillTemplate('{note}', input)).toEqual({ text: '', empty: true });
    expect(fillTemplate('{address.street}{empty}', input)).toEqual({ text: '', empty: true });
    expect(fillTemplate('{serialNumber}{note}', input)).toEqual({ text: 'SN1', empty: false });
    expect(fillTemplate('{toString}', input)).toEqual({ text: '', empty: true });
  });
});
