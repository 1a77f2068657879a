/**
 * A role of a store, taken from an object that plays it (a backend, or a whole store): what
 * the split store is composed of. Each role file lists its methods once, in a `RoleMethods`
 * object, so the compiler refuses a method added to a role without being listed there.
 */

/** Every method name of a role, each `true`: a list that cannot miss one or name one too many. */
export type RoleMethods<R> = { readonly [K in keyof R]-?: true };

/** `impl`'s methods of the role, bound to it: an object that plays that role and nothing more. */
export function roleOf<R extends object>(impl: R, methods: RoleMethods<R>): R {
  const role: Partial<R> = {};
  for (const name of Object.keys(methods) as (keyof R)[]) {
    const member = impl[name];
    role[name] = typeof member === 'function' ? (member.bind(impl) as R[keyof R]) : member;
  }
  return role as R;
}
