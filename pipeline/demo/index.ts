/** The demo: the whole observatory on the simulated Web of Data, on a virtual clock. */
export type { DemoOptions, DemoResult, StrategyMeasures } from './demo.ts';
export { COMPARED_STRATEGY, runDemo } from './demo.ts';
export { DEMO_MARKER, prepareDemoFolder } from './demo-folder.ts';
export type { CaptureMeasures } from './truth-comparison.ts';
export { captureMeasures } from './truth-comparison.ts';
