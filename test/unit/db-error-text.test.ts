import { describe, expect, it } from 'vitest';
import { describeDbError } from '../../lib/store/database';

describe('describeDbError', () => {
  it("says a refused Neon connection failed, where the driver's empty WebSocket ErrorEvent read [object ErrorEvent]", () => {
    // What @neondatabase/serverless rejects with on Node when the address refuses: an ErrorEvent whose
    // message is empty, holding a TypeError whose message is empty too (seen against 127.0.0.1:9).
    class ErrorEvent {
      readonly type = 'error';
      readonly message = '';
      readonly error = new TypeError('');
    }
    const error = new Error('Failed query: select 1\nparams: ', { cause: new ErrorEvent() });
    expect(describeDbError(error)).toBe('Failed query: select 1: the connection failed (ErrorEvent)');
  });

  it('says what it knows of other objects without a message, not that a connection failed', () => {
    expect(describeDbError(new Error('Failed query: select 1', { cause: { code: '28P01' } }))).toBe(
      'Failed query: select 1: error 28P01',
    );
    expect(describeDbError({})).toBe('an error without a message (Object)');
  });

  it("uses an event's own message, or its error's, when it has one, and redacts an address in it", () => {
    const event = { type: 'error', message: '', error: new Error('connect ECONNREFUSED 10.1.2.3:5432') };
    const described = describeDbError(new Error('Failed query: select 1', { cause: event }));
    expect(described).toMatch(/^Failed query: select 1: connect ECONNREFUSED /);
    expect(described).not.toContain('10.1.2.3');
  });
});
