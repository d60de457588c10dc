// Fault attribution (host/mounts/fault-attribution.ts) in-process: a fault in
// a plugin's async context, or in a callback it registered, is that plugin's
// (its live instance is told, as the host's own work; a released instance's is
// logged); anything else is the host's own (fatal, exit 1); process.exit,
// reallyExit, abort and kill of the host's pid throw into plugin code and
// fault it, while the host's own calls pass with the status it chose.
// test/plugin-blame.test.ts and test/plugin-faults.test.ts fault real plugins
// in hosts; this file is quick enough for `npm run mutation`.
//
// The hooks are process-wide and installed once: this process's own exit,
// reallyExit, abort and kill are replaced first by stand-ins that record what
// reaches them (the guards wrap those), and put back when the tests end.
import t from 'tap';
import type { Logger } from '../../host/log.js';
import {
  PluginExitRefused,
  claimPluginCode,
  exitHost,
  installFaultAttribution,
} from '../../host/mounts/fault-attribution.js';
import { pluginInContext, runAsPlugin } from '../../host/mounts/isolation/in-process-link.js';
import type { PluginFault } from '../../host/mounts/plugin-code-claim.js';
import { until } from '../helpers/host.js';

type Node = Record<'exit' | 'reallyExit' | 'abort' | 'kill', (...args: unknown[]) => unknown>;
const node = process as unknown as Node;
/** What reached Node's own functions: the name, whether `this` was process, and the arguments. */
const reached: unknown[][] = [];
const logged: unknown[][] = [];
const logger = {
  fatal: (...args: unknown[]) => logged.push(['fatal', ...args]),
  error: (...args: unknown[]) => logged.push(['error', ...args]),
} as unknown as Logger;
const listenersBefore = {
  uncaughtException: process.listeners('uncaughtException'),
  unhandledRejection: process.listeners('unhandledRejection'),
};

// In the first test, not at the top: tap wraps process.reallyExit (signal-exit) as it starts its first test.
function installWithStandIns(): void {
  const real = { exit: node.exit, reallyExit: node.reallyExit, abort: node.abort, kill: node.kill };
  for (const name of ['exit', 'reallyExit', 'abort', 'kill'] as const) {
    node[name] = function (this: unknown, ...args: unknown[]) {
      reached.push([name, this === process, ...args]);
    };
  }
  installFaultAttribution(logger);
  installFaultAttribution(logger);
  t.teardown(() => {
    Object.assign(node, real);
    for (const listener of process.listeners('uncaughtException')) {
      if (!listenersBefore.uncaughtException.includes(listener)) process.removeListener('uncaughtException', listener);
    }
    for (const listener of process.listeners('unhandledRejection')) {
      if (!listenersBefore.unhandledRejection.includes(listener)) {
        process.removeListener('unhandledRejection', listener);
      }
    }
  });
}
t.beforeEach(() => {
  reached.length = 0;
  logged.length = 0;
});

/** A plugin instance: its faults, and whether each was handled as the host's own code. */
function plugin(description = 'plugin "boom" (@acme/boom)') {
  const faults: (PluginFault & { asHost: boolean })[] = [];
  const claim = claimPluginCode(
    { description, fault: (f) => faults.push({ ...f, asHost: !pluginInContext() }) },
    logger,
  );
  return { claim, faults };
}

t.test('installed once: one listener each for uncaught exceptions and forgotten rejections', async (t) => {
  installWithStandIns();
  t.equal(process.listeners('uncaughtException').length, listenersBefore.uncaughtException.length + 1);
  t.equal(process.listeners('unhandledRejection').length, listenersBefore.unhandledRejection.length + 1);
});

t.test('claimPluginCode: the claim names the instance, and lets it go once released', async (t) => {
  const owner = { description: 'plugin "x" (x)', fault: () => {} };
  const claim = claimPluginCode(owner, logger);
  t.equal(claim.description, 'plugin "x" (x)');
  t.equal(claim.logger, logger);
  t.equal(claim.live, owner);
  claim.release();
  t.equal(claim.live, undefined);
  t.equal(claim.description, 'plugin "x" (x)', 'still named in the log');
});

t.test("the host's own calls pass: reallyExit with its status, until the host chose one", async (t) => {
  node.reallyExit(9);
  node.abort();
  node.kill(process.pid, 'SIGUSR2');
  node.kill(0, 'SIGTERM');
  t.same(reached, [
    ['reallyExit', true, 9],
    ['abort', true],
    ['kill', true, process.pid, 'SIGUSR2'],
    ['kill', true, 0, 'SIGTERM'],
  ]);
  reached.length = 0;
  exitHost(5);
  node.reallyExit(0);
  t.same(
    reached,
    [
      ['exit', true, 5],
      ['reallyExit', true, 5],
    ],
    "the host's chosen status, whatever an 'exit' listener set",
  );
});

t.test("an exception or rejection in no plugin's context is the host's fault: fatal, exit 1", async (t) => {
  const boom = new Error('host bug');
  setImmediate(() => {
    throw boom;
  });
  await until('the host to exit', () => reached.length > 0);
  t.same(logged, [
    [
      'fatal',
      { err: boom },
      "an exception was thrown outside any request, in no plugin's async context nor in a callback a plugin registered: the host's own fault; exiting with status 1",
    ],
  ]);
  t.same(reached, [['exit', true, 1]]);
  logged.length = 0;
  reached.length = 0;
  const lost = new Error('lost');
  void Promise.reject(lost);
  await until('the host to exit', () => reached.length > 0);
  t.same(logged, [
    [
      'fatal',
      { err: lost },
      "a promise was rejected with nothing to handle it, in no plugin's async context nor in a callback a plugin registered: the host's own fault; exiting with status 1",
    ],
  ]);
  t.same(reached, [['exit', true, 1]]);
});

t.test("a plugin's exit refusal that escapes to no one's context is no fault of the host", async (t) => {
  setImmediate(() => {
    throw new PluginExitRefused('refused already');
  });
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.same(logged, []);
  t.same(reached, []);
});

t.test("an exception in a plugin's context faults the plugin, handled as the host's own work", async (t) => {
  const { claim, faults } = plugin();
  const thrown = new Error('boom');
  runAsPlugin(claim, () =>
    setImmediate(() => {
      throw thrown;
    }),
  );
  await until('the plugin to be faulted', () => faults.length > 0);
  t.same(faults, [{ cause: 'an exception was thrown outside any request: boom.', stack: thrown.stack, asHost: true }]);
  t.same(logged, [], 'not the host’s');
  t.same(reached, []);
  faults.length = 0;
  runAsPlugin(claim, () => void Promise.reject('a string!'));
  await until('the plugin to be faulted', () => faults.length > 0);
  t.same(
    faults,
    [{ cause: 'a promise was rejected with nothing to handle it: a string!', asHost: true }],
    'no stack when no Error was thrown; a sentence already ended is kept',
  );
  faults.length = 0;
  runAsPlugin(claim, () => void Promise.reject({ code: 7 }));
  await until('the plugin to be faulted', () => faults.length > 0);
  t.same(faults, [{ cause: 'a promise was rejected with nothing to handle it: {"code":7}.', asHost: true }]);
});

t.test('a callback a plugin registered faults it when it throws, wherever Node runs it', async (t) => {
  const { claim, faults } = plugin();
  const thrown = new Error('listener bug');
  const listener = () => {
    throw thrown;
  };
  runAsPlugin(claim, () => process.on('mcp-host-test-event' as 'exit', listener));
  process.emit('mcp-host-test-event' as 'exit', 0);
  t.same(faults, [
    { cause: 'its process "mcp-host-test-event" listener threw: listener bug.', stack: thrown.stack, asHost: true },
  ]);
  process.removeListener('mcp-host-test-event' as 'exit', listener);
  t.equal(process.listenerCount('mcp-host-test-event'), 0);
});

t.test('a released instance’s fault is logged, with nothing to restart', async (t) => {
  const { claim, faults } = plugin('plugin "old" (@acme/old)');
  claim.release();
  const thrown = new Error('late timer');
  runAsPlugin(claim, () =>
    setImmediate(() => {
      throw thrown;
    }),
  );
  await until('the fault to be logged', () => logged.length > 0);
  t.same(logged, [
    [
      'error',
      { plugin: 'plugin "old" (@acme/old)', stack: thrown.stack },
      'plugin "old" (@acme/old), no longer mounted, faulted: an exception was thrown outside any request: late timer. Nothing to restart.',
    ],
  ]);
  t.same(faults, []);
  t.same(reached, [], 'the host runs on');
});

t.test('plugin code that ends or signals the host is refused with a throw, and faulted', async (t) => {
  const { claim, faults } = plugin();
  const limit = Error.stackTraceLimit;
  const refusal = (work: () => unknown, what: string) => {
    faults.length = 0;
    t.throws(() => runAsPlugin(claim, work), {
      name: 'PluginExitRefused',
      message: `plugin "boom" (@acme/boom) ${what}: mcp-host refuses process exits and signals from plugin code.`,
    });
    t.equal(faults.length, 1, what);
    t.equal(faults[0]!.cause, `its code ${what}, which would have ended the host and every plugin in it.`);
    t.equal(faults[0]!.asHost, true);
    const stack = faults[0]!.stack!;
    t.match(stack, /^Error\n {4}at .*fault-attribution\.test\.[jt]s/, 'the stack starts at the plugin’s call');
    t.ok(stack.split('\n').length > 11, 'more of it than the default ten frames');
  };
  refusal(() => process.exit(3), 'called process.exit(3)');
  refusal(() => process.exit(), 'called process.exit()');
  refusal(() => node.exit('soon'), 'called process.exit(soon)');
  refusal(() => node.reallyExit(4), 'called process.reallyExit(4)');
  refusal(() => node.reallyExit(), 'called process.reallyExit(undefined)');
  refusal(() => process.abort(), 'called process.abort()');
  refusal(() => process.kill(process.pid), `called process.kill(${process.pid}, SIGTERM) on the host's own process`);
  refusal(() => process.kill(0, 'SIGKILL'), "called process.kill(0, SIGKILL) on the host's own process");
  refusal(() => process.kill(process.pid, 9), `called process.kill(${process.pid}, 9) on the host's own process`);
  t.same(reached, [], 'none reached Node');
  t.equal(Error.stackTraceLimit, limit, 'the stack trace limit put back');
  faults.length = 0;
  runAsPlugin(claim, () => {
    process.kill(process.pid, 0);
    process.kill(process.pid + 100_000, 'SIGTERM');
  });
  t.same(
    reached,
    [
      ['kill', true, process.pid, 0],
      ['kill', true, process.pid + 100_000, 'SIGTERM'],
    ],
    'asking whether the host exists, or signalling another process, passes',
  );
  t.same(faults, []);
});

t.test('an exit refused in a timer faults the plugin once, not again as an uncaught exception', async (t) => {
  const { claim, faults } = plugin();
  runAsPlugin(claim, () => setImmediate(() => process.exit(2)));
  await until('the plugin to be faulted', () => faults.length > 0);
  await new Promise((resolve) => setTimeout(resolve, 50));
  t.equal(faults.length, 1);
  t.equal(faults[0]!.cause, 'its code called process.exit(2), which would have ended the host and every plugin in it.');
  t.same(logged, []);
  t.same(reached, []);
});
