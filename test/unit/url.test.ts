import { describe, expect, it } from 'vitest';
import { hostAndPortOf, hostOf, originOf, sameOrigin } from '../../utils/url';

describe('url', () => {
  it('reads the parts of an address', () => {
    expect(originOf('https://Tracker.Example.org:8443/details.php?id=1')).toBe('https://tracker.example.org:8443');
    expect(hostOf('https://Tracker.Example.org:8443/details.php')).toBe('tracker.example.org');
    expect(hostAndPortOf('https://Tracker.Example.org:8443/details.php')).toBe('tracker.example.org:8443');
    expect(hostAndPortOf('http://example.org/')).toBe('example.org');
  });

  it('lowercases a host name the URL parser keeps as written', () => {
    expect(hostOf('web+tracker://Tracker.Example/')).toBe('tracker.example');
  });

  it('gives undefined, never a throw, for an empty or unparsable address', () => {
    for (const bad of [undefined, '', 'not a url', 'http://']) {
      expect(originOf(bad)).toBeUndefined();
      expect(hostOf(bad)).toBeUndefined();
      expect(hostAndPortOf(bad)).toBeUndefined();
    }
  });

  it('says two addresses share an origin only when both parse to the same one', () => {
    expect(sameOrigin('https://a.example/x', 'https://a.example/y?z')).toBe(true);
    expect(sameOrigin('https://a.example/', 'http://a.example/')).toBe(false);
    expect(sameOrigin('https://a.example/', 'https://a.example:8443/')).toBe(false);
    expect(sameOrigin('', '')).toBe(false);
    expect(sameOrigin('bad', 'bad')).toBe(false);
  });
});
