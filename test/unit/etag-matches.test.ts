// If-None-Match against a current tag (lib/http/cached-json.ts): the weak comparison of RFC 9110 13.1.2.
import { describe, expect, it } from 'vitest';
import { etagMatches } from '../../lib/http/cached-json';

const TAG = '"abc_-123"';

describe('etagMatches', () => {
  it.each([
    [TAG, true],
    [`W/${TAG}`, true],
    [` ${TAG} `, true],
    [`"other", ${TAG}`, true],
    [`W/"other",W/${TAG}`, true],
    ['*', true],
    [' * ', true],
    ['"other"', false],
    ['"abc_-123', false],
    ['', false],
    [`"other", W/"abc"`, false],
    // The weak prefix is case-sensitive, and so is the tag.
    [`w/${TAG}`, false],
    ['"ABC_-123"', false],
  ])('%j -> %s', (ifNoneMatch, matches) => {
    expect(etagMatches(ifNoneMatch, TAG)).toBe(matches);
  });
});
