// If-None-Match against a current tag (lib/http/cached-json.ts): the weak comparison of RFC 9110 13.1.2.
import { describe, expect, it } from 'vitest';
import { etagMatches, strongEtag } from '../../lib/http/cached-json';

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

describe('strongEtag', () => {
  it('is the first 128 bits of the SHA-256 in unpadded base64url', () => {
    // FIPS 180-2's test vector: SHA-256("abc") begins ba7816bf 8f01cfea 414140de 5dae2223.
    expect(strongEtag(new TextEncoder().encode('abc'))).toBe('"ungWv48Bz-pBQUDeXa4iIw"');
    // Equal bytes, equal tags; one byte more, another tag.
    expect(strongEtag(new TextEncoder().encode('abc'))).toBe(strongEtag(Uint8Array.of(0x61, 0x62, 0x63)));
    expect(strongEtag(new TextEncoder().encode('abcd'))).not.toBe(
      strongEtag(new TextEncoder().encode('abc')),
    );
  });
});
