// The face of the controlled-medicines feature: the states' rules as data and the one judge
// that reads them. Pure: it stores nothing and imports no other feature.
export { judgeControlledMedicine, ruleCovers, rulesCovering, type ControlledFacts, type ControlledJudgement, type ControlledRefusal } from './controlled-judge.ts';
export { RULES_READ, STATE_RULES, type StateRequirement, type StateRule, type StateRuleSource } from './state-rules.ts';
export { RTPM_PROGRAMS, rtpmProgramOf, type RtpmProgram } from './rtpm-programs.ts';
