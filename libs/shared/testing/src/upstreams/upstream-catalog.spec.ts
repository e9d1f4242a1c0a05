import { describe, expect, it } from 'vitest';
import { askResult, CatalogState, completeGreetName, rootsResult, runSlow, samplingResult, slowResult } from './upstream-catalog';

describe('completeGreetName', () => {
  it('gives the names that start with the typed prefix', () => {
    expect(completeGreetName('A')).toEqual(['Ada', 'Alan']);
    expect(completeGreetName('')).toEqual(['Ada', 'Alan', 'Grace']);
    expect(completeGreetName(undefined)).toEqual(['Ada', 'Alan', 'Grace']);
    expect(completeGreetName('a')).toEqual([]);
  });
});

describe('askResult', () => {
  it('gives the answer when accepted and "declined" otherwise', () => {
    expect(askResult('accept', { answer: 'yes' })).toEqual({ content: [{ type: 'text', text: 'answer: yes' }] });
    expect(askResult('decline', undefined)).toEqual({ content: [{ type: 'text', text: 'declined' }] });
    expect(askResult('cancel', undefined)).toEqual({ content: [{ type: 'text', text: 'declined' }] });
    expect(askResult('accept', {})).toEqual({ content: [{ type: 'text', text: 'declined' }] });
  });
});

describe('samplingResult', () => {
  it('joins text blocks, whether one block or several came', () => {
    expect(samplingResult({ type: 'text', text: 'one' })).toEqual({ content: [{ type: 'text', text: 'one' }] });
    expect(samplingResult([{ type: 'text', text: 'a' }, { type: 'image' }, { type: 'text', text: 'b' }])).toEqual({
      content: [{ type: 'text', text: 'a\nb' }],
    });
  });

  it('is a tool error when the model sent no text', () => {
    expect(samplingResult({ type: 'image', data: '', mimeType: 'image/png' })).toMatchObject({ isError: true });
  });
});

describe('rootsResult', () => {
  it('joins the root URIs', () => {
    expect(rootsResult([{ uri: 'file:///a' }, { uri: 'file:///b' }])).toEqual({ content: [{ type: 'text', text: 'file:///a, file:///b' }] });
    expect(rootsResult([])).toEqual({ content: [{ type: 'text', text: '' }] });
  });
});

describe('runSlow', () => {
  it('reports each step and ends with all of them done', async () => {
    const reported: [number, number][] = [];
    const run = await runSlow(3, 1, new AbortController().signal, async (progress, total) => void reported.push([progress, total]));
    expect(reported).toEqual([
      [1, 3],
      [2, 3],
      [3, 3],
    ]);
    expect(run).toEqual({ steps: 3, stepsDone: 3, cancelled: false });
    expect(slowResult(run)).toEqual({ content: [{ type: 'text', text: 'done after 3 steps' }] });
  });

  it('stops at the abort and reports nothing more', async () => {
    const controller = new AbortController();
    const reported: number[] = [];
    const run = await runSlow(50, 5, controller.signal, async (progress) => {
      reported.push(progress);
      if (progress === 2) controller.abort();
    });
    expect(run).toEqual({ steps: 50, stepsDone: 2, cancelled: true });
    expect(reported).toEqual([1, 2]);
  });
});

describe('CatalogState', () => {
  it('changes descriptions of known tools and adds new ones once', () => {
    const state = new CatalogState();
    state.setDescription('echo', 'new');
    expect(state.description('echo')).toBe('new');
    state.addTool('extra');
    expect(state.addedTools()).toEqual(['extra']);
    expect(() => state.addTool('extra')).toThrow(/already has/);
    expect(() => state.setDescription('nope', 'x')).toThrow(/no tool "nope"/);
  });
});
