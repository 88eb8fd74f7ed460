/** The demo: the whole observatory on the simulated Web of Data, on a virtual clock. */
export type { DemoOptions, DemoResult } from './demo.ts';
export { runDemo } from './demo.ts';
export { DEMO_MARKER, prepareDemoFolder } from './demo-folder.ts';
export type { CaptureMeasures } from './truth-comparison.ts';
export { captureMeasures } from './truth-comparison.ts';
