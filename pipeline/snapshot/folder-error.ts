import { ObservatoryError } from '../core/index.ts';

/**
 * The error of a published folder that is not what its manifest says, naming the folder and the
 * problem. Its own module: the outputs and the list of them (outputs.ts) both raise it, and an
 * output importing the list's module for it would make the two depend on each other.
 */
export function corrupt(folder: string, problem: string): ObservatoryError {
  return new ObservatoryError('corrupt', `${folder}: ${problem}`);
}
