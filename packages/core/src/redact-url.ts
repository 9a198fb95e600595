/**
 * A URL as operators may see it: a user and password become `redacted`, and so does every query
 * value (`?access_token=...`), every bare query entry (`?<key>`) and the fragment
 * (`#access_token=...`), since any of them may hold a secret. Names, host and path stay.
 * Something that is not a URL becomes `<not a URL>`, never itself.
 *
 * @example
 * redactUrl('https://u:p@idp.example/jwks?access_token=abc&v=2#t=x');
 * // 'https://redacted@idp.example/jwks?access_token=redacted&v=redacted#redacted'
 */
export function redactUrl(url: string): string {
  if (!URL.canParse(url)) return '<not a URL>';
  const parsed = new URL(url);
  if (parsed.username !== '' || parsed.password !== '') {
    parsed.username = 'redacted';
    parsed.password = '';
  }
  // Built by hand: URLSearchParams would turn a bare `?flag` into `?flag=`.
  if (parsed.search !== '') {
    parsed.search = parsed.search
      .slice(1)
      .split('&')
      .map((pair) => {
        if (pair.includes('=')) return `${pair.slice(0, pair.indexOf('='))}=redacted`;
        // A bare entry may be the secret itself (`/invoke?<key>`).
        return pair === '' ? pair : 'redacted';
      })
      .join('&');
  }
  if (parsed.hash !== '') parsed.hash = 'redacted';
  return parsed.toString();
}
