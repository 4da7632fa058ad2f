import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import ts from 'typescript';

/** A file or function longer than the size rule allows. */
export interface SizeViolation {
  /** `path` for a whole file, `path:name` for a function in it. */
  where: string;
  lines: number;
  limit: number;
}

export interface SizeLimits {
  fileLines: number;
  functionLines: number;
}

/** The lines a node spans, from its first token (not the comments before it) to its last. */
function linesOf(node: ts.Node, source: ts.SourceFile): number {
  const start = source.getLineAndCharacterOfPosition(node.getStart(source)).line;
  const end = source.getLineAndCharacterOfPosition(node.getEnd()).line;
  return end - start + 1;
}

/** What a reader would call the function: its own name, the variable or property it is assigned to, or its line. */
function nameOf(node: ts.FunctionLikeDeclaration, source: ts.SourceFile): string {
  if (node.name) return node.name.getText(source);
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent) || ts.isPropertyDeclaration(parent)) && parent.name) {
    return parent.name.getText(source);
  }
  return `<anonymous at line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}>`;
}

/**
 * Every file over `fileLines` and every function (declarations, expressions, arrow functions,
 * methods, accessors, constructors) over `functionLines` in one source text. A function's lines
 * include the functions nested in it: a long body is long however it is split inside.
 */
export function sizeViolationsIn(path: string, text: string, limits: SizeLimits): SizeViolation[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true, ts.ScriptKind.TS);
  const violations: SizeViolation[] = [];
  const fileLines = source.getLineAndCharacterOfPosition(source.getEnd()).line + (text.endsWith('\n') ? 0 : 1);
  if (fileLines > limits.fileLines) violations.push({ where: path, lines: fileLines, limit: limits.fileLines });
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && 'body' in node && node.body !== undefined) {
      const lines = linesOf(node, source);
      if (lines > limits.functionLines) {
        violations.push({ where: `${path}:${nameOf(node as ts.FunctionLikeDeclaration, source)}`, lines, limit: limits.functionLines });
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return violations;
}

/** The TypeScript files under `directory` (recursively), tests excluded, as paths from the working directory. */
export function sourceFilesUnder(directory: string): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile() && entry.name.endsWith('.ts') && !entry.name.endsWith('.test.ts'))
    .map((entry) => join(entry.parentPath, entry.name))
    .sort();
}

/** The size violations in every source file under `directory`. */
export function sizeViolationsUnder(directory: string, limits: SizeLimits): SizeViolation[] {
  return sourceFilesUnder(directory).flatMap((path) => sizeViolationsIn(path, readFileSync(path, 'utf8'), limits));
}
