// The text resource `BENCH_METHOD=resources/read` reads on every target, defined once so the platform
// (written through the admin API by mcp-requests.bench.mjs) and the SDK server (sdk-server.mjs,
// `registerResource`) serve the same bytes. Its text is that of the conformance fixture
// `test://static-text`; a resource of its own because the fixture is exposed on
// `conformance/everything` only, and the `-auth` targets read on `conformance/protected`.

/** Written with `servers: []`: every virtual server of the tenant exposes it. */
export const BENCH_RESOURCE = Object.freeze({
  uri: 'bench://static-text',
  name: 'bench-static-text',
  title: 'Benchmark static text resource',
  description: 'A small static text resource for the resources/read benchmark.',
  mimeType: 'text/plain',
  text: 'This is the content of the static text resource.',
});
