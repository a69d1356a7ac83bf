import { GltfError } from './errors.ts';
import { describe } from './json.ts';

/** Which URIs a model may make the loader fetch. */
export interface UriPolicy {
  /**
   * Allow http(s) resources on an origin other than the model's. Off by default: a model
   * should not make the page contact servers the page author never named.
   */
  readonly crossOrigin?: boolean;
}

/**
 * The URL to fetch for a buffer or image `uri` of a glTF loaded from `base` in a browser
 * (glTF 2.0 §3.6.1.1: URIs are RFC 3986 references, relative ones resolved against the
 * asset). Pass the URI as written in the file (`LoadOptions.resolveUri`'s `rawUri`): it is
 * already percent-encoded, and decoding it first would turn `%2F` into a path separator.
 *
 * Allowed: `data:`; `http:`/`https:` on the model's origin (any origin with
 * `crossOrigin`), never `http:` under an `https:` model; `blob:` URLs of the model's own
 * origin; `file:` only under the folder of a `file:` model. Everything else — `javascript:`,
 * `about:`, other origins' `blob:`, `file:` from a web page, unknown schemes — is refused
 * with a GltfError saying why. Scheme tricks (`JaVaScRiPt:`, a leading space, a tab inside
 * the scheme, `\` for `/`, `//host/…`) are judged on the URL as the browser parses it.
 */
export function resolveGltfUri(base: string | URL, uri: string, policy: UriPolicy = {}): URL {
  let baseUrl: URL;
  try {
    baseUrl = new URL(base);
  } catch {
    throw new GltfError('', `the model's location ${describe(String(base))} is not an absolute URL`);
  }
  let url: URL;
  try {
    url = new URL(uri, baseUrl);
  } catch {
    throw new GltfError('', `${describe(uri)} is not a URI that resolves against ${baseUrl.protocol} URLs`);
  }
  switch (url.protocol) {
    case 'data:':
      return url;
    case 'http:':
    case 'https:':
      if (baseUrl.protocol === 'https:' && url.protocol === 'http:') {
        throw new GltfError('', `${describe(url.href)} is plain http under an https model`);
      }
      if (url.origin !== baseUrl.origin && !policy.crossOrigin) {
        throw new GltfError('', `${describe(url.href)} is on another origin than the model (${baseUrl.origin})`);
      }
      if (url.username !== '' || url.password !== '') throw new GltfError('', `${describe(url.href)} carries credentials`);
      return url;
    case 'blob:':
      // A blob: URL is readable only by the origin that made it.
      if (url.origin !== baseUrl.origin) throw new GltfError('', `${describe(url.href)} is a blob: URL of another origin`);
      return url;
    case 'file:': {
      const folder = baseUrl.href.slice(0, baseUrl.href.lastIndexOf('/') + 1);
      if (baseUrl.protocol !== 'file:' || !url.href.startsWith(folder)) {
        throw new GltfError('', `${describe(url.href)} is a local file outside the model's folder`);
      }
      return url;
    }
    default:
      throw new GltfError('', `${url.protocol} URIs are not fetched (only http(s), data: and the page's own blob:)`);
  }
}
