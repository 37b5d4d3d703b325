// /docs: renders /openapi.json with Swagger UI (served by this app, never from a CDN) and points
// "Try it out" at this very origin, whatever `servers` says (a proxy or a custom domain may differ).
(() => {
  const origin = window.location.origin;
  const mcpUrl = `${origin}/api/mcp`;
  document.getElementById('mcp-url').textContent = mcpUrl;
  document.getElementById('mcp-remote').textContent = `npx mcp-remote ${mcpUrl}`;
  const config = document.getElementById('mcp-config');
  config.textContent = config.textContent.replace('"/api/mcp"', JSON.stringify(mcpUrl));

  fetch('/openapi.json', { headers: { Accept: 'application/json' } })
    .then((res) => {
      if (!res.ok) throw new Error(`/openapi.json answered ${res.status}`);
      return res.json();
    })
    .then((spec) => {
      spec.servers = [{ url: origin, description: 'This server' }];
      window.ui = window.SwaggerUIBundle({
        spec,
        dom_id: '#swagger-ui',
        deepLinking: true,
        tryItOutEnabled: false,
        displayRequestDuration: true,
        defaultModelsExpandDepth: 0,
        // No badge from the public validator: the page loads nothing from any other origin.
        validatorUrl: null,
        // The MCP transport answers 406 unless the client accepts both JSON and an event stream;
        // Swagger UI would send only the one media type its menu offers.
        requestInterceptor: (request) => {
          if (new URL(request.url, origin).pathname === '/api/mcp') {
            request.headers.Accept = 'application/json, text/event-stream';
          }
          return request;
        },
        presets: [window.SwaggerUIBundle.presets.apis],
        layout: 'BaseLayout',
      });
    })
    .catch((error) => {
      document.getElementById('swagger-ui').textContent =
        `The reference could not be loaded: ${error.message}.`;
    });
})();
