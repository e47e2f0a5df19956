package langgraph

// answeredIDs are the ids of the interrupts a thread lists that were
// answered already: every interrupt of a task that has its result in the
// thread's state (a task that finished waits for nothing).
//
// Both servers keep listing answered branches of a fan-out in
// thread.interrupts: they fill it from the debug checkpoint event of the
// last run, which reports every interrupt the step raised, answered or not,
// and corrects only the tasks that run itself executed. So after the second
// of three branches is answered, the first is listed again (observed on
// langgraphjs 1.7.3 and langgraph-api 0.16.7). The state tells them apart,
// differently on each server:
//
//   - langgraphjs keeps an answered task's interrupts in the state's task,
//     beside its result: the ids match;
//   - the Python server reads the state "live" (langgraph 1.2.20,
//     tasks_w_writes(live=True)): a finished task's interrupts are dropped
//     ([] beside its result), so no id matches, and only the task id, the
//     key of thread.interrupts, says which listed interrupts it answered.
//
// A task without a result keeps all its interrupts listed: nothing that
// waits is hidden here.
func answeredIDs(t *thread, st *threadState) map[string]bool {
	out := map[string]bool{}
	done := map[string]bool{}
	for _, task := range st.Tasks {
		if !task.answered() {
			continue
		}
		done[task.ID] = true
		for i, w := range task.Interrupts {
			out[interruptID(w, t.ThreadID, task.ID, i)] = true
		}
	}
	for _, e := range t.Interrupts {
		if !done[e.TaskID] {
			continue
		}
		for i, w := range e.Interrupts {
			out[interruptID(w, t.ThreadID, e.TaskID, i)] = true
		}
	}
	return out
}
