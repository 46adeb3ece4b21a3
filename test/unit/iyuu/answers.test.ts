/** The message table and the answer interpretation, as pure functions. */
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { MESSAGE_RULES, NO_CANDIDATES, interpretAnswer, matchMessage, retryAfterSeconds, type AnswerRules } from '../../../utils/iyuu/answers';
import { ServiceError, toFailure } from '../../../utils/iyuu/service-errors';

describe('matchMessage', () => {
  it.each([
    ['请求缺少token', 'auth'],
    ['token未注册，请先绑定推荐站点', 'auth'],
    ['token无效', 'auth'],
    ['token已过期', 'auth'],
    ['用户未绑定推荐站点', 'not-bound'],
    ['站点哈希值 require', 'stale-site-hash'],
    ['站点缓存哈希值无效', 'stale-site-hash'],
    ['sid_sha1 require', 'stale-site-hash'],
    ['时间戳已过期', 'expired-timestamp'],
    ['timestamp expired', 'expired-timestamp'],
    ['签名错误', 'bad-sign'],
    ['appid无效', 'bad-sign'],
    ['访问频率过快', 'rate-limited'],
    ['辅种间隔过于频繁', 'rate-limited'],
    ['未查询到可辅种数据', 'no-candidates'],
    ['Server internal error', 'server'],
    ["OOM command not allowed when used memory > 'maxmemory'.", 'server'],
    ['服务器内部错误', 'server'],
  ])('%s → %s', (message, outcome) => {
    expect(matchMessage(message)).toBe(outcome);
  });

  it.each(['该站点账号已被其他token绑定', '参数token与请求头Token不一致', 'hash格式错误', 'sha1校验失败', 'timestamp require', 'ok', '', 'assign', 'design'])(
    'leaves "%s" unmatched',
    (message) => {
      expect(matchMessage(message)).toBeUndefined();
    },
  );

  it('is a table of plain rules', () => {
    expect(MESSAGE_RULES.length).toBeGreaterThan(5);
    for (const rule of MESSAGE_RULES) expect(rule.pattern).toBeInstanceOf(RegExp);
  });
});

const rules: AnswerRules<unknown> = { operation: 'test', successCode: 0, noCandidatesIsEmpty: true, parse: (json) => json };
const headers = (entries: Record<string, string> = {}) => new Headers(entries);
const answer = (status: number, text: string | null, extra: Record<string, string> = {}, receivedAt = 1_000_000) => ({
  status,
  headers: headers(extra),
  text,
  receivedAt,
});
const kindOf = (run: () => unknown) => {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(ServiceError);
    return (error as ServiceError).kind;
  }
  return 'returned';
};

describe('interpretAnswer', () => {
  it('returns the parsed success envelope, and NO_CANDIDATES for 未查询到可辅种数据', () => {
    expect(interpretAnswer(rules, answer(200, '\uFEFF {"code":0,"msg":"ok","data":[]}'))).toEqual({ code: 0, msg: 'ok', data: [] });
    expect(interpretAnswer(rules, answer(200, '{"code":400,"msg":"未查询到可辅种数据","data":[]}'))).toBe(NO_CANDIDATES);
    expect(kindOf(() => interpretAnswer({ ...rules, noCandidatesIsEmpty: false }, answer(200, '{"code":400,"msg":"未查询到可辅种数据"}')))).toBe('bad-request');
  });

  it.each([
    [200, '{"code":401,"msg":""}', 'auth'],
    [200, '{"code":403,"msg":"forbidden"}', 'auth'],
    [200, '{"code":500,"msg":"Server internal error"}', 'server'],
    [200, '{"code":429,"msg":""}', 'rate-limited'],
    [200, '{"code":400,"msg":"something else"}', 'bad-request'],
    [200, '{"code":-1,"msg":"something else"}', 'bad-request'],
    [200, '{"code":"0","msg":"ok","data":{}}', 'bad-answer'],
    [200, '{"msg":"ok"}', 'bad-answer'],
    [200, '<html></html>', 'bad-answer'],
    [200, '', 'bad-answer'],
    [200, null, 'bad-answer'],
    [401, '<html>401</html>', 'auth'],
    [403, '{"code":403,"msg":"用户未绑定推荐站点"}', 'not-bound'],
    [404, '{"code":0,"msg":"ok","data":{}}', 'bad-request'],
    [302, '', 'bad-answer'],
    [500, '{"code":0,"msg":"ok","data":{}}', 'server'],
    [503, null, 'server'],
    [429, null, 'rate-limited'],
  ] as const)('HTTP %i %s → %s', (status, text, kind) => {
    expect(kindOf(() => interpretAnswer(rules, answer(status, text)))).toBe(kind);
  });

  it.each([
    // webman renders an uncaught exception as HTTP 200 + its code + "Server internal error" (REAL-ANSWERS.md).
    [200, '{\n    "code": 400,\n    "msg": "Server internal error"\n}'],
    [200, '{"code":400,"msg":"Server internal error","data":[]}'],
    [200, '{"code":1,"msg":"Server internal error"}'],
    [200, `{"code":500,"msg":"OOM command not allowed when used memory > 'maxmemory'. script: c253b7d9, on @user_script:1."}`],
    [200, '{"code":400,"msg":"SQLSTATE[HY000] [1040] Too many connections"}'],
    // ThinkPHP's rendering of an exception, debug off: its error_message under `message`, even with code 0.
    [200, '{"code":500,"message":"页面错误！请稍后再试～"}'],
    // A body of plain words, not JSON and not an HTML page: the server failing aloud.
    [200, "OOM command not allowed when used memory > 'maxmemory'. script: c253b7d9ec59b467750e672b358427bbaa6015c5, on @user_script:1."],
    [200, 'Server busy, please retry later'],
    [200, 'PHP Fatal error:  Uncaught RedisException: read error on connection in /www/app.php:12'],
    [200, '<br />\n<b>Fatal error</b>:  Allowed memory size of 134217728 bytes exhausted in <b>/www/a.php</b> on line <b>8</b><br />'],
  ] as const)('HTTP %i %j is a transient server failure', (status, text) => {
    expect(kindOf(() => interpretAnswer(rules, answer(status, text)))).toBe('server');
  });

  it('takes an unreadable "success" that carries a server failure text as the server failing', () => {
    const needsData = { ...rules, parse: (json: unknown) => z.object({ data: z.object({}) }).parse(json) };
    expect(kindOf(() => interpretAnswer(needsData, answer(200, '{"code":0,"message":"页面错误！请稍后再试～"}')))).toBe('server');
    expect(kindOf(() => interpretAnswer(needsData, answer(200, '{"code":0,"msg":"ok"}')))).toBe('bad-answer');
  });

  it('keeps the first line of a server failure text as the service message, bounded', () => {
    try {
      interpretAnswer(rules, answer(200, `OOM command not allowed ${'x'.repeat(500)}\nsecond line`));
      expect.unreachable();
    } catch (error) {
      expect((error as ServiceError).serviceMessage).toBe(`OOM command not allowed ${'x'.repeat(500)}`.slice(0, 200));
    }
  });

  it.each([
    [200, '<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>Checking your browser</body></html>', 'bad-answer'],
    [200, '{"code":0,"msg":"ok","data":{"a"', 'bad-answer'],
    [200, '["trunc', 'bad-answer'],
    [404, 'Not Found', 'bad-request'],
    [200, '{"code":400,"msg":"hash格式错误"}', 'bad-request'],
  ] as const)('HTTP %i %j is still %s, not a server failure', (status, text, kind) => {
    expect(kindOf(() => interpretAnswer(rules, answer(status, text)))).toBe(kind);
  });

  it('lets an operation define codes (403 = expired timestamp on the signed lookup)', () => {
    const signed = { ...rules, successCode: 200, codeMeanings: { 403: 'expired-timestamp', 401: 'bad-sign' } } as const;
    expect(kindOf(() => interpretAnswer(signed, answer(200, '{"code":403,"msg":""}')))).toBe('expired-timestamp');
    expect(kindOf(() => interpretAnswer(signed, answer(200, '{"code":401,"msg":""}')))).toBe('bad-sign');
    // A message wins over the code.
    expect(kindOf(() => interpretAnswer(signed, answer(200, '{"code":403,"msg":"签名错误"}')))).toBe('bad-sign');
  });

  it('measures the clock offset from the Date header on an expired timestamp', () => {
    const receivedAt = Date.parse('2026-01-01T00:00:00Z');
    try {
      interpretAnswer(rules, answer(200, '{"code":400,"msg":"时间戳已过期","data":[]}', { Date: 'Thu, 01 Jan 2026 00:10:00 GMT' }, receivedAt));
      expect.unreachable();
    } catch (error) {
      expect(toFailure(error)).toMatchObject({ kind: 'expired-timestamp', clockOffsetSeconds: 600, code: 400, serviceMessage: '时间戳已过期', httpStatus: 200 });
    }
    try {
      interpretAnswer(rules, answer(200, '{"code":400,"msg":"时间戳已过期"}', {}, receivedAt));
      expect.unreachable();
    } catch (error) {
      expect((error as ServiceError).clockOffsetSeconds).toBeUndefined();
    }
  });

  it('keeps the service message text verbatim but bounded', () => {
    const long = 'x'.repeat(5000);
    try {
      interpretAnswer(rules, answer(200, JSON.stringify({ code: 400, msg: `<b>${long}</b>` })));
      expect.unreachable();
    } catch (error) {
      expect((error as ServiceError).serviceMessage).toBe(`<b>${long}`.slice(0, 2000));
    }
  });
});

describe('retryAfterSeconds', () => {
  const raw = (value?: string, date?: string) => ({ headers: headers({ ...(value ? { 'Retry-After': value } : {}), ...(date ? { Date: date } : {}) }), receivedAt: 0 });

  it('prefers the header, then data["Retry-After"], then 30 s', () => {
    expect(retryAfterSeconds(raw('12'), { 'Retry-After': 50 })).toBe(12);
    expect(retryAfterSeconds(raw(), { 'Retry-After': 50 })).toBe(50);
    expect(retryAfterSeconds(raw(), { 'Retry-After': '7' })).toBe(7);
    expect(retryAfterSeconds(raw(), [])).toBe(30);
    expect(retryAfterSeconds(raw('soon'), { 'Retry-After': 'later' })).toBe(30);
    expect(retryAfterSeconds(raw('-5'), null)).toBe(30);
  });

  it('reads HTTP dates against the Date header and bounds the wait to a day', () => {
    expect(retryAfterSeconds(raw('Thu, 01 Jan 2026 00:01:00 GMT', 'Thu, 01 Jan 2026 00:00:00 GMT'), undefined)).toBe(60);
    expect(retryAfterSeconds(raw('Thu, 01 Jan 2026 00:00:00 GMT', 'Thu, 01 Jan 2026 00:01:00 GMT'), undefined)).toBe(0);
    expect(retryAfterSeconds(raw('9999999999'), undefined)).toBe(86_400);
  });
});
