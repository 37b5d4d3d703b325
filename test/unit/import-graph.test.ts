import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');

/** Every TypeScript module of the app, by path relative to the repository root. */
function listModules(dir: string): string[] {
  return readdirSync(join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const path = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return listModules(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** Resolves a relative specifier the way the bundler does (`x` -> `x.ts` or `x/index.ts`). */
function resolveImport(from: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined;
  const base = relative(ROOT, resolve(ROOT, dirname(from), specifier));
  for (const candidate of [base, `${base}.ts`, `${base}/index.ts`]) {
    if (candidate.endsWith('.ts') && existsSync(join(ROOT, candidate))) return candidate;
  }
  throw new Error(`${from}: cannot resolve ${specifier}`);
}

/** The project's import graph: every static, type-only, re-export and dynamic import between its own modules. */
function readImportGraph(): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of [...listModules('functions'), ...listModules('lib'), ...listModules('cron')]) {
    const info = ts.preProcessFile(readFileSync(join(ROOT, file), 'utf8'), true, true);
    const targets = info.importedFiles.flatMap(({ fileName }) => resolveImport(file, fileName) ?? []);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one module, or a module importing itself (Tarjan). */
function findCycles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    low.set(node, index.get(node) as number);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next)) {
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
      }
    }
    if (low.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string | undefined;
      do {
        member = stack.pop() as string;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.includes(node)) cycles.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return cycles;
}

const graph = readImportGraph();

describe('the import graph', () => {
  it('reads the modules it checks', () => {
    expect(graph.get('functions/app.ts')).toContain('functions/gas.ts');
    expect(graph.get('functions/gas.ts')).toContain('functions/app-env.ts');
    expect(graph.get('lib/services/current-gas.ts')).toContain('lib/errors.ts');
  });

  it('keeps HTTP out of services, upstream clients, stores, forecast, oracle and cron jobs', () => {
    const domain = /^(lib\/(services|upstream|store|forecast|oracle)|cron)\//;
    const offending = [...graph]
      .filter(([file]) => domain.test(file))
      .flatMap(([file, targets]) =>
        targets.filter((t) => t.startsWith('lib/http/')).map((t) => `${file} -> ${t}`),
      );
    expect(offending).toEqual([]);
  });

  it('has no module cycle through functions/', () => {
    const cycles = findCycles(graph).filter((cycle) => cycle.some((file) => file.startsWith('functions/')));
    expect(cycles).toEqual([]);
  });

  it('finds a cycle when there is one', () => {
    const withCycle = new Map(graph);
    withCycle.set('functions/app-env.ts', ['functions/app.ts']);
    expect(findCycles(withCycle).flat()).toContain('functions/app-env.ts');
  });
});
