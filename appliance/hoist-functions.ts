import type { PluginObj, types as t } from '@babel/core';

/**
 * Babel plugin for the Espruino build: moves every function declaration to the start of the
 * statement list of its program or function body, keeping their order. JavaScript hoists such
 * declarations anyway, so the program means the same; Espruino's interpreter does not hoist, and
 * bundled CommonJS code such as `module.exports = assert; function assert() {}` would otherwise
 * read an undeclared name on the board. Declarations inside other blocks are left where they
 * are (their scoping differs). Runs when the rest of the program has been transformed.
 */
export function hoistFunctionDeclarations(): PluginObj {
  const hoist = (body: t.Statement[]): void => {
    const declarations = body.filter((s) => s.type === 'FunctionDeclaration');
    if (declarations.length === 0) return;
    const rest = body.filter((s) => s.type !== 'FunctionDeclaration');
    body.splice(0, body.length, ...declarations, ...rest);
  };
  return {
    name: 'roost-hoist-function-declarations',
    visitor: {
      Program: {
        exit(path) {
          hoist(path.node.body);
          path.traverse({
            Function(fn) {
              if (fn.node.body.type === 'BlockStatement') hoist(fn.node.body.body);
            },
          });
        },
      },
    },
  };
}
