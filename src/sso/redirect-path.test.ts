import { describe, expect, it } from 'vitest';
import { readRedirectPath } from './redirect-path.ts';

const PORTAL = 'https://portal.example.org';

describe('readRedirectPath', () => {
  it.each([
    ['/dashboard', '/dashboard'],
    ['/embed/patients/p1/prescriptions?quantity=5', '/embed/patients/p1/prescriptions?quantity=5'],
    ['/dashboard/patients/p1#prescriptions', '/dashboard/patients/p1#prescriptions'],
    ['/dashboard/../embed/x', '/embed/x'],
    ['/embed/x?reserved_1=http://a.example//b', '/embed/x?reserved_1=http://a.example//b'],
    ['/%2F%2Fevil.example', '/%2F%2Fevil.example'],
    ['/embed/Zoë', '/embed/Zo%C3%AB'],
  ])('keeps %j on the portal as %j', (sent, path) => {
    const { redirect, issues } = readRedirectPath(sent, PORTAL);
    expect(issues).toEqual([]);
    expect(redirect?.path).toBe(path);
  });

  it('lands on /dashboard when no path is sent', () => {
    expect(readRedirectPath(undefined, PORTAL).redirect?.path).toBe('/dashboard');
  });

  it.each([
    ['https://evil.example/dashboard', /starting with \//],
    ['http:/dashboard', /starting with \//],
    ['javascript:alert(1)', /starting with \//],
    ['dashboard', /starting with \//],
    ['', /starting with \//],
    ['//evil.example/dashboard', /\/\//],
    ['/dashboard//x', /\/\//],
    ['/\\evil.example', /backslash/],
    ['/dashboard\\..\\x', /backslash/],
    ['/dash board', /spaces or control characters/],
    ['/dashboard\r\nSet-Cookie: x=1', /spaces or control characters/],
    ['/dashboard?q=\t', /spaces or control characters/],
  ])('refuses %j', (sent, message) => {
    const { redirect, issues } = readRedirectPath(sent, PORTAL);
    expect(redirect).toBeUndefined();
    expect(issues).toEqual([{ field: 'redirect_path', message: expect.stringMatching(message), code: 'VALIDATION_ERROR' }]);
  });

  it('reads reserved_1..3 from the query: decoded, truncated to 30 characters, empty or absent as null', () => {
    const long = 'x'.repeat(29) + 'é€'; // 31 characters, two of them outside ASCII
    const sent = `/embed/p?reserved_1=a%20b%26c&reserved_2=&reserved_3=${encodeURIComponent(long)}`;
    expect(readRedirectPath(sent, PORTAL).redirect?.reserved).toEqual({ reserved_1: 'a b&c', reserved_2: null, reserved_3: long.slice(0, 30) });
    expect(readRedirectPath('/embed/p?quantity=1', PORTAL).redirect?.reserved).toEqual({ reserved_1: null, reserved_2: null, reserved_3: null });
  });
});
