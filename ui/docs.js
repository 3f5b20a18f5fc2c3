// The API reference page (/docs): Swagger UI, served from the Worker's static assets, reading the service's own
// OpenAPI document. "Try it out" sends real requests with the X-Service-Token entered under "Authorize".
window.addEventListener('DOMContentLoaded', () => {
  window.SwaggerUIBundle({
    url: '/openapi.json',
    dom_id: '#reference',
    deepLinking: true,
    persistAuthorization: false,
    tryItOutEnabled: false,
  });
});
