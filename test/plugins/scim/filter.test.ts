import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { filter as oracleFilter, parse as oracleParse } from 'scim2-parse-filter';
import { ScimFilterError } from '../../../plugins/scim/filter/ast.ts';
import { compileFilter } from '../../../plugins/scim/filter/compile-filter.ts';
import { MAX_FILTER_DEPTH, parseFilter } from '../../../plugins/scim/filter/parse-filter.ts';
import type { ResourceSchema } from '../../../plugins/scim/filter/resource-schema.ts';

const USER = 'urn:ietf:params:scim:schemas:core:2.0:User';
const ENTERPRISE = 'urn:ietf:params:scim:schemas:extension:enterprise:2.0:User';

/** A User-like resource over one table, as the SCIM plugin maps members. */
const schema: ResourceSchema = {
  coreUrn: USER,
  attributes: {
    id: { type: 'string', sql: 'u.id', caseExact: true },
    userName: { type: 'string', sql: 'u.user_name' },
    displayName: { type: 'string', sql: 'u.display_name' },
    externalId: { type: 'string', sql: 'u.external_id', caseExact: true },
    active: { type: 'boolean', sql: 'u.active' },
    name: { type: 'complex', sub: { givenName: { type: 'string', sql: 'u.given_name' }, familyName: { type: 'string', sql: 'u.family_name' } } },
    emails: { type: 'multi', elements: 'u.emails', sub: { value: { type: 'string' }, type: { type: 'string' }, primary: { type: 'boolean' } } },
    meta: { type: 'complex', sub: { created: { type: 'dateTime', sql: 'u.created' }, lastModified: { type: 'dateTime', sql: 'u.created' } } },
  },
  extensions: { [ENTERPRISE]: { employeeNumber: { type: 'integer', sql: 'u.employee_number' }, department: { type: 'string', sql: 'u.department' } } },
};

interface Row {
  id: string; userName: string; displayName: string | null; externalId: string | null; active: boolean;
  givenName: string | null; familyName: string | null; emails: Array<{ value: string; type: string; primary?: boolean }>;
  created: string; employeeNumber: number | null; department: string | null;
}
const rows: Row[] = [
  { id: 'u1', userName: 'Alice@Example.com', displayName: 'Alice A', externalId: 'ext-1', active: true, givenName: 'Alice', familyName: 'Archer',
    emails: [{ value: 'alice@work.test', type: 'work', primary: true }, { value: 'alice@home.test', type: 'home' }], created: '2026-01-01T00:00:00Z', employeeNumber: 7, department: 'R&D' },
  { id: 'u2', userName: 'bob@example.com', displayName: 'Bob 100%_done', externalId: 'EXT-2', active: false, givenName: 'Bob', familyName: null,
    emails: [{ value: 'bob@home.test', type: 'home' }, { value: 'bob@work.test', type: 'other' }], created: '2026-06-01T00:00:00Z', employeeNumber: 12, department: null },
  { id: 'u3', userName: 'carol@sample.org', displayName: null, externalId: null, active: true, givenName: null, familyName: 'Cruz',
    emails: [], created: '2026-12-01T00:00:00Z', employeeNumber: null, department: 'Sales' },
  { id: 'u4', userName: 'dave_x@example.com', displayName: '', externalId: 'ext-4', active: true, givenName: 'Dave', familyName: 'Doe',
    emails: [{ value: 'DAVE@WORK.TEST', type: 'Work', primary: false }], created: '2027-03-01T00:00:00Z', employeeNumber: 100, department: 'r&d' },
];

describe('SCIM filters compiled to SQL (run on PostgreSQL)', () => {
  let pg: PGlite;
  beforeAll(async () => {
    pg = new PGlite();
    await pg.exec(`create table u (id text primary key, user_name text not null, display_name text, external_id text, active boolean not null,
      given_name text, family_name text, emails jsonb, created timestamptz not null, employee_number integer, department text)`);
    for (const r of rows) {
      await pg.query('insert into u values ($1,$2,$3,$4,$5,$6,$7,$8,$9,$10,$11)',
        [r.id, r.userName, r.displayName, r.externalId, r.active, r.givenName, r.familyName, JSON.stringify(r.emails), r.created, r.employeeNumber, r.department]);
    }
  });
  afterAll(() => pg?.close());

  async function run(filter: string): Promise<string[]> {
    const { sql, bindings } = compileFilter(parseFilter(filter), schema);
    let i = 0;
    const text = sql.replace(/\?/g, () => `$${++i}`);
    const res = await pg.query<{ id: string }>(`select id from u where ${text} order by id`, bindings as never[]);
    return res.rows.map((r) => r.id);
  }

  const table: Array<[string, string[]]> = [
    ['userName eq "alice@example.com"', ['u1']], // caseExact false
    ['USERNAME EQ "ALICE@EXAMPLE.COM"', ['u1']], // attribute names and operators are case-insensitive
    [`${USER}:userName eq "bob@example.com"`, ['u2']], // URN-qualified
    ['userName ne "alice@example.com"', ['u2', 'u3', 'u4']],
    ['userName co "EXAMPLE"', ['u1', 'u2', 'u4']],
    ['userName sw "ALI"', ['u1']], // case-insensitive sw
    ['userName ew ".ORG"', ['u3']], // case-insensitive ew
    ['userName sw "dave_"', ['u4']], // "_" is literal, not a LIKE wildcard
    ['displayName co "100%_"', ['u2']], // "%" literal
    ['displayName co "%"', ['u2']],
    ['userName gt "c"', ['u3', 'u4']],
    ['userName le "bob@example.com"', ['u1', 'u2']],
    ['externalId eq "ext-2"', []], // caseExact: true
    ['externalId eq "EXT-2"', ['u2']],
    ['displayName pr', ['u1', 'u2']], // empty string is not present
    ['externalId pr', ['u1', 'u2', 'u4']],
    ['not (displayName pr)', ['u3', 'u4']],
    ['displayName eq null', ['u3']],
    ['active eq true', ['u1', 'u3', 'u4']],
    ['active ne true', ['u2']],
    ['not (active eq true)', ['u2']],
    ['name.givenName eq "bob"', ['u2']],
    ['name.familyName pr', ['u1', 'u3', 'u4']],
    ['not (name.familyName eq "archer")', ['u2', 'u3', 'u4']], // an absent value is "not equal"
    ['emails co "work.test"', ['u1', 'u2', 'u4']], // a bare multi-valued attribute tests value
    ['emails.value eq "bob@home.test"', ['u2']],
    ['emails pr', ['u1', 'u2', 'u4']],
    ['emails[type eq "work"]', ['u1', 'u4']], // "Work" matches case-insensitively
    ['emails[type eq "work" and value co "alice"]', ['u1']],
    ['emails[type eq "work"].value eq "bob@work.test"', []], // same element: bob's work-looking address is type "other"
    ['emails[type eq "work"].value eq "dave@work.test"', ['u4']],
    ['emails[not (type eq "home")]', ['u1', 'u2', 'u4']],
    ['emails[primary eq true]', ['u1']],
    ['emails[type eq "home"] and emails[type eq "other"]', ['u2']],
    ['meta.created gt "2026-06-01T00:00:00Z"', ['u3', 'u4']],
    ['meta.created ge "2026-06-01T00:00:00Z"', ['u2', 'u3', 'u4']],
    ['meta.created lt "2026-06-01T00:00:00.000+00:00"', ['u1']],
    [`${ENTERPRISE}:employeeNumber gt 10`, ['u2', 'u4']],
    [`${ENTERPRISE}:employeeNumber eq 7`, ['u1']],
    [`${ENTERPRISE}:department eq "R&D"`, ['u1', 'u4']],
    ['userName sw "a" or userName sw "b" and active eq true', ['u1']], // and binds tighter than or
    ['(userName sw "a" or userName sw "b") and active eq true', ['u1']],
    ['(userName sw "a" or userName sw "b") and active eq false', ['u2']],
    ['not (userName sw "a" or userName sw "b")', ['u3', 'u4']],
    ['userName eq "x" or (displayName pr and not (active eq false))', ['u1']],
  ];
  it.each(table)('%s → %j', async (filter, expected) => {
    expect(await run(filter)).toEqual(expected);
  });

  // Filters whose semantics the npm library gets right on this data (top-level, lower-case data, no
  // value paths, no `pr` — it counts null as present): its in-memory answer must agree with the SQL answer.
  const lowerRows = rows.map((r) => ({ id: r.id, userName: r.userName.toLowerCase(), active: r.active, externalId: r.externalId }));
  it.each(['userName eq "bob@example.com"', 'userName co "example"', 'userName sw "c"', 'active eq false', 'externalId eq "ext-1"',
    'userName sw "a" or userName sw "d"', 'not (userName co "sample") and active eq true'])('agrees with scim2-parse-filter on %s', async (filter) => {
    const expected = lowerRows.filter(oracleFilter(oracleParse(filter))).map((r) => r.id).sort();
    const { sql, bindings } = compileFilter(parseFilter(filter), schema);
    let i = 0;
    const res = await pg.query<{ id: string }>(`select id from (select id, lower(user_name) as user_name, display_name, external_id, active, given_name, family_name, emails, created, employee_number, department from u) u where ${sql.replace(/\?/g, () => `$${++i}`)} order by id`, bindings as never[]);
    expect(res.rows.map((r) => r.id)).toEqual(expected);
  });

  it("uses an attribute's index-friendly eqSql for eq (every ? bound to the lower-cased value), the exact complement under not", async () => {
    const eqSql = 'u.id IN (SELECT id FROM u WHERE lower(user_name) = ? UNION ALL SELECT id FROM u WHERE lower(display_name) = ?)';
    const indexed: ResourceSchema = { ...schema, attributes: { ...schema.attributes, userName: { type: 'string', sql: 'u.user_name', eqSql } } };
    const ids = async (filter: string) => {
      const { sql, bindings } = compileFilter(parseFilter(filter), indexed);
      let i = 0;
      return { sql, bindings, ids: (await pg.query<{ id: string }>(`select id from u where ${sql.replace(/\?/g, () => `$${++i}`)} order by id`, bindings as never[])).rows.map((r) => r.id) };
    };
    expect(await ids('userName eq "ALICE@example.com"')).toEqual({ sql: `(${eqSql})`, bindings: ['alice@example.com', 'alice@example.com'], ids: ['u1'] });
    expect((await ids('userName eq "alice a"')).ids).toEqual(['u1']); // whatever the form says equality is
    expect((await ids('not (userName eq "alice@example.com")')).ids).toEqual(['u2', 'u3', 'u4']);
    expect((await ids('userName ne "alice@example.com"')).sql).not.toContain('IN (SELECT'); // other operators use sql
    expect((await ids('emails[type eq "work"] and userName eq "dave_x@example.com"')).ids).toEqual(['u4']);
  });

  it('binds values, never splices them into the SQL', () => {
    const { sql, bindings } = compileFilter(parseFilter(`userName eq "x' or 1=1 --" and displayName co "\\"); drop table u; --"`), schema);
    expect(sql).not.toContain('1=1');
    expect(sql).not.toContain('drop');
    expect(bindings).toEqual(["x' or 1=1 --", '%"); drop table u; --%']);
  });
});

describe('SCIM filters refused (400 invalidFilter)', () => {
  const bad: Array<[string, RegExp]> = [
    ['', /empty/], ['   ', /empty/], ['userName', /operator/], ['userName eq', /value/], ['userName xx "a"', /operator/],
    ['userName eq "a" and', /attribute/], ['(userName eq "a"', /"\)"/], ['userName eq "a")', /Unexpected/], ['userName eq \'a\'', /character/],
    ['userName eq "unterminated', /Unterminated/], ['userName eq "\\x"', /Invalid string/], ['not userName eq "a"', /"\("/],
    ['emails[type eq "work"', /"\]"/], ['emails[type eq "a"][value eq "b"]', /Unexpected/], ['emails[emails[type eq "a"]]', /cannot hold/],
    ['1 eq 1', /attribute/], ['userName eq 01', /Unexpected|value/], ['name..givenName eq "a"', /Invalid attribute/],
  ];
  it.each(bad)('parse %j', (filter, message) => {
    expect(() => parseFilter(filter)).toThrow(ScimFilterError);
    expect(() => parseFilter(filter)).toThrow(message);
  });

  const unknown: Array<[string, RegExp]> = [
    ['nickName eq "a"', /Unknown attribute nickName/], ['name eq "a"', /complex/], ['name.middleName eq "a"', /Unknown attribute name.middleName/],
    ['userName.x eq "a"', /no sub-attribute/], ['emails[kind eq "a"]', /Unknown attribute emails.kind/], ['userName[type eq "a"]', /not multi-valued/],
    ['urn:example:other:2.0:User:userName eq "a"', /Unknown schema/], ['active eq "yes"', /true or false/], ['active gt true', /eq or ne/],
    ['userName eq 5', /with a string/], ['meta.created gt "yesterday"', /ISO 8601/], ['meta.created co "2026"', /strings only/],
    [`${ENTERPRISE}:employeeNumber eq "7"`, /with a number/], ['userName gt null', /not a comparison/],
    // PostgreSQL has no year 0 and reads no six-digit years: refused here, never a database error.
    ['meta.created gt "0000-01-01T00:00:00Z"', /years 0001 and 9999/], ['meta.created lt "+010000-01-01T00:00:00Z"', /years 0001 and 9999/],
  ];
  it.each(unknown)('compile %j', (filter, message) => {
    expect(() => compileFilter(parseFilter(filter), schema)).toThrow(ScimFilterError);
    expect(() => compileFilter(parseFilter(filter), schema)).toThrow(message);
  });

  it('refuses deep nesting and huge filters quickly, before recursing', () => {
    const started = performance.now();
    const deep = `${'('.repeat(10_000)}userName eq "a"${')'.repeat(10_000)}`;
    expect(() => parseFilter(deep)).toThrow(/longer than|nested deeper/);
    const deepShort = `${'not ('.repeat(MAX_FILTER_DEPTH + 1)}userName eq "a"${')'.repeat(MAX_FILTER_DEPTH + 1)}`;
    expect(() => parseFilter(deepShort)).toThrow(/nested deeper than 32/);
    expect(() => parseFilter(`userName eq "${'a'.repeat(1024 * 1024)}"`)).toThrow(/longer than 4096/);
    expect(performance.now() - started).toBeLessThan(1000);
    // At the limit it parses.
    expect(parseFilter(`${'('.repeat(MAX_FILTER_DEPTH)}userName eq "a"${')'.repeat(MAX_FILTER_DEPTH)}`)).toEqual({ kind: 'compare', path: { attr: 'userName' }, op: 'eq', value: 'a' });
  });
});
