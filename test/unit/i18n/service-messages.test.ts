import { beforeEach, describe, expect, it } from 'vitest';
import { fakeBrowser } from 'wxt/testing/fake-browser';
import { friendlyServiceMessage } from '../../../utils/i18n';
import { installI18n, loadMessages } from '../support/i18n';

const en = loadMessages('en');

beforeEach(() => {
  fakeBrowser.reset();
  installI18n('en');
});

describe('friendlyServiceMessage', () => {
  it.each([
    ['站点缓存哈希值无效', 'serviceMsgSiteHash'],
    ['站点哈希值 require', 'serviceMsgSiteHash'],
    ['时间戳已过期', 'serviceMsgTimestamp'],
    ['用户未绑定推荐站点', 'serviceMsgNotBound'],
    ['请求缺少token', 'serviceMsgToken'],
    ['token未注册，请先绑定推荐站点', 'serviceMsgToken'],
    ['该站点账号已被其他token绑定', 'serviceMsgAlreadyBound'],
    ['访问频率过快', 'serviceMsgTooFast'],
    ['辅种间隔过于频繁', 'serviceMsgTooFast'],
    ['未查询到可辅种数据', 'serviceMsgNoCandidates'],
  ])('maps %s to our words', (message, key) => {
    expect(friendlyServiceMessage(message)).toBe(en[key]!.message);
  });

  it('says nothing of its own for messages it does not know', () => {
    expect(friendlyServiceMessage('服务器内部错误')).toBeUndefined();
    expect(friendlyServiceMessage(undefined)).toBeUndefined();
  });
});
