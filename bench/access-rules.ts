/**
 * What the access rules cost a call (part of `npm run bench`): matching an
 * identity's claims against the rules, finding the view those rules share,
 * and judging one composed name against its globs: what routing.ts does
 * before every call, read and get when `access` is set. Measured in this
 * process, with no host around it, so the figure is the rules' own.
 *
 * BENCH_RULE_CHECKS scales the run.
 */
import { accessViewOf } from '../host/catalogue/access-rules.js';
import type { ResolvedConfig } from '../host/config/types.js';
import type { Identity } from '../host/vocabulary/identity.js';

const CHECKS = Number(process.env.BENCH_RULE_CHECKS ?? 1_000_000);

const config = {
  access: [
    { who: { scope: 'notes' }, tools: ['notes.*'], resources: ['note://**'] },
    { who: { groups: ['admins'] }, tools: ['**'] },
    { who: { token: 'ci' }, tools: ['clock.*'] },
  ],
} as unknown as ResolvedConfig;
const alice: Identity = { kind: 'user', name: 'alice', claims: { sub: 'alice', groups: ['ops'] }, scopes: ['notes'] };
const names = ['notes.add_note', 'clock.now'];

const judge = (count: number) => {
  let allowed = 0;
  for (let i = 0; i < count; i++) if (accessViewOf(config, alice).allows('tools', names[i % 2]!)) allowed++;
  return allowed;
};
judge(CHECKS / 10); // warm up: the globs compile, the view is made, the JIT settles
const start = process.hrtime.bigint();
judge(CHECKS);
const perCheck = Number(process.hrtime.bigint() - start) / CHECKS;
console.log('Access rules: one check per call (identity matched, its view found, one name judged by glob)');
console.log(`  ${(perCheck / 1e6).toFixed(5)} ms per call (${perCheck.toFixed(0)} ns), over ${CHECKS} checks`);
