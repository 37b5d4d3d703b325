// The Worker's bindings are plain strings (vars and secrets); tell `cloudflare:test` so.
declare namespace Cloudflare {
  interface Env {
    [name: string]: string | undefined;
  }
}
