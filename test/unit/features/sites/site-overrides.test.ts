import { describe, expect, it } from 'vitest';
import { parseOverride } from '../../../../features/sites/ui/site-overrides';

describe('parseOverride', () => {
  it('takes a bare domain, lower-cased', () => {
    expect(parseOverride({ host: ' Mirror.Example.COM ', scheme: '' })).toEqual({ host: 'mirror.example.com' });
    expect(parseOverride({ host: 'mirror.example.com/', scheme: 'http' })).toEqual({ host: 'mirror.example.com', scheme: 'http' });
  });

  it('means no override when both fields are empty, and a scheme alone is one', () => {
    expect(parseOverride({ host: '  ', scheme: '' })).toBeUndefined();
    expect(parseOverride({ host: '', scheme: 'https' })).toEqual({ scheme: 'https' });
  });

  it('takes a pasted address apart; the chosen scheme wins over the pasted one', () => {
    expect(parseOverride({ host: 'http://pt.example.org/', scheme: '' })).toEqual({ host: 'pt.example.org', scheme: 'http' });
    expect(parseOverride({ host: 'HTTPS://pt.example.org', scheme: 'http' })).toEqual({ host: 'pt.example.org', scheme: 'http' });
  });

  it('refuses what cannot be stored rather than dropping part of it', () => {
    for (const host of [
      'not a host',
      'localhost',
      'pt.example.org:8443',
      'https://pt.example.org:8443/',
      'https://pt.example.org/details.php',
      'https://user:pw@pt.example.org/',
      'ftp://pt.example.org/',
      'https://',
      '-bad.example.org',
      'pt..example.org',
      'http://[::1]/',
      '中文.example',
    ]) {
      expect(parseOverride({ host, scheme: '' }), host).toBe('invalid');
    }
  });
});
