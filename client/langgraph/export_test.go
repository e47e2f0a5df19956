package langgraph

// BusyAnswer exposes busyAnswer to the conformance suite, which checks it
// against what each real server answers.
var BusyAnswer = busyAnswer
