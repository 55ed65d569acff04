// The face of the controlled-medicines feature: the states' rules as data and the one judge
// that reads them. Pure: it stores nothing and imports no other feature.
export { judgeControlledMedicine, type ControlledFacts, type ControlledJudgement } from './controlled-judge.ts';
export { type StateRule } from './state-rules.ts';
export { rtpmProgramOf, type RtpmProgram } from './rtpm-programs.ts';
