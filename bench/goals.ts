/**
 * Issue #42's goals, which every bench that judges a row holds it to.
 *
 * Per call, the most host/direct may be, per transport and workload, against
 * the fastest way the SDK serves the plugin directly (`serveStdio`,
 * `createMcpHandler`); stdio's are judged on one CPU (BENCH_CPUS=0).
 */
export const RATIO_GOALS = {
  stdio: { sequential: 1.1, concurrent: 1.15 },
  'Streamable HTTP': { sequential: 1.05, concurrent: 1.05 },
} as const;

/**
 * To the first tools/list answered: the host with 100 plugins against the
 * least any server of the same plugins must do (the SDK-only proxy
 * importing and creating them), and the host with none against one plugin
 * served directly.
 */
export const START_GOALS = { overSdkProxy: 1.15, emptyOverDirect: 1.3 } as const;
