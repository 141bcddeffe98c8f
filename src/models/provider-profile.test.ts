import { describe, expect, it } from 'vitest';
import {
  detectProvider,
  PROVIDER_IDS,
  REASONING_EFFORTS,
  reasoningControlFields,
  reasoningSettingsProblem,
} from './provider-profile.ts';
import { PROVIDER_PROFILES } from './provider-profiles.ts';

describe('detectProvider', () => {
  it.each([
    ['https://api.openai.com/v1', 'openai'],
    ['https://api.deepseek.com', 'deepseek'],
    ['https://api.deepseek.com/v1', 'deepseek'],
    ['https://dashscope.aliyuncs.com/compatible-mode/v1', 'dashscope'],
    ['https://dashscope-intl.aliyuncs.com/compatible-mode/v1', 'dashscope'],
    ['https://api.moonshot.cn/v1', 'moonshot'],
    ['https://api.moonshot.ai/v1', 'moonshot'],
    ['https://api.siliconflow.cn/v1', 'siliconflow'],
    ['https://api.ap.siliconflow.com/v1', 'siliconflow'],
    ['https://openrouter.ai/api/v1', 'openrouter'],
    ['http://localhost:11434/v1', 'ollama'],
    ['http://192.168.1.20:11434/v1', 'ollama'],
  ] as const)('%s → %s', (baseUrl, provider) => {
    expect(detectProvider(baseUrl)).toBe(provider);
  });

  it('leaves ambiguous local ports and every other host to plain OpenAI behaviour', () => {
    expect(detectProvider('http://localhost:8000/v1')).toBe('openai-compatible');
    expect(detectProvider('http://localhost:8080/v1')).toBe('openai-compatible');
    expect(detectProvider('https://api.deepseek.com.example.net/v1')).toBe('openai-compatible');
    expect(detectProvider('https://evil-dashscope.aliyuncs.com.example/v1')).toBe('openai-compatible');
    expect(detectProvider('not a url')).toBe('openai-compatible');
  });
});

describe('the provider table', () => {
  it('has a profile for every provider id, under its own id', () => {
    expect(Object.keys(PROVIDER_PROFILES).sort()).toEqual([...PROVIDER_IDS].sort());
    for (const id of PROVIDER_IDS) expect(PROVIDER_PROFILES[id].id).toBe(id);
  });

  it('maps every effort of every profile that takes one onto a non-empty value', () => {
    for (const profile of Object.values(PROVIDER_PROFILES)) {
      if (profile.effort === undefined) continue;
      for (const effort of REASONING_EFFORTS) {
        expect(JSON.stringify(profile.effort(effort))).toMatch(/"[a-z]+"\}+$/);
      }
    }
  });
});

describe('reasoningSettingsProblem and reasoningControlFields', () => {
  it('accepts what a provider documents, and adds nothing when nothing is set', () => {
    expect(reasoningSettingsProblem(PROVIDER_PROFILES.deepseek, 'on', 'max')).toBeUndefined();
    expect(reasoningControlFields(PROVIDER_PROFILES.deepseek, undefined, undefined)).toEqual({});
    expect(reasoningControlFields(PROVIDER_PROFILES.deepseek, 'on', 'max')).toEqual({
      thinking: { type: 'enabled' },
      reasoning_effort: 'max',
    });
  });

  it('names what a provider lacks, and an effort with thinking off', () => {
    expect(reasoningSettingsProblem(PROVIDER_PROFILES.dashscope, undefined, 'high')).toBe(
      'Alibaba Cloud Model Studio (DashScope) (dashscope) documents no reasoning effort; leave it unset',
    );
    expect(reasoningSettingsProblem(PROVIDER_PROFILES['openai-compatible'], 'on', undefined)).toContain(
      'documents no switch for thinking',
    );
    expect(reasoningSettingsProblem(PROVIDER_PROFILES.openai, 'off', 'low')).toBe(
      'a reasoning effort needs thinking, which is switched off',
    );
  });
});
