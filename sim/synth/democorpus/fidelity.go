package democorpus

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// The demo's user-fidelity study: three user simulators (demo-lite,
// demo-std, demo-pro, by cost) against one agent on eight retail return
// tasks, three trials each (72 episodes), a rubric of four criteria per
// task (one per family) and one grader's verdicts, written as the files a
// user brings: tau2-bench result files, a rubric JSONL and a verdict JSONL
// (ub rubrics import, ub verdicts import). Episode e (0..23) of simulator
// s fails a family on a fixed pattern, so that every figure of the study
// has its data:
//
//	simulator   $/sim   disclosure   goal deviation   groundedness   omitted info
//	demo-lite   0.002   e % 2 = 0    e % 4 = 1        e % 6 = 3      e % 8 = 7
//	demo-std    0.004   e % 3 = 0    e % 6 = 1        e % 8 = 3      never
//	demo-pro    0.008   e % 4 = 0    e % 8 = 1        never          never
//
// The agent succeeds (R = 1) unless the user accepted store credit (goal
// deviation) or e % 5 = 4; it makes one tool call fewer when the user gave
// the id unasked.

// FidelityGrader is the grader of the demo's verdicts.
const FidelityGrader = "demo-grader"

const demoUFSTasks, demoUFSTrials = 8, 3

type demoUFSSim struct {
	name  string
	cost  float64
	fails [4]func(e int) bool // disclosure, goal deviation, groundedness, omitted info
}

func every(n, r int) func(int) bool { return func(e int) bool { return e%n == r } }
func never(int) bool                { return false }

var demoUFSSims = []demoUFSSim{
	{"demo-lite", 0.002, [4]func(int) bool{every(2, 0), every(4, 1), every(6, 3), every(8, 7)}},
	{"demo-std", 0.004, [4]func(int) bool{every(3, 0), every(6, 1), every(8, 3), never}},
	{"demo-pro", 0.008, [4]func(int) bool{every(4, 0), every(8, 1), never, never}},
}

func demoUFSTask(i int) dm {
	return dm{
		"id": fmt.Sprintf("return_kettle_%d", i),
		"user_scenario": dm{"persona": nil, "instructions": dm{
			"domain":            "retail",
			"reason_for_call":   fmt.Sprintf("You want to return the blue kettle from order #W100%d.", i),
			"known_info":        fmt.Sprintf("You are Ana Ruiz. Your user id is ana_ruiz_%d.", i),
			"unknown_info":      nil,
			"task_instructions": "Give your user id only when the agent asks for it. Do not accept store credit instead of a refund."}},
		"evaluation_criteria": dm{"actions": []dm{}, "reward_basis": []string{"DB"}},
	}
}

// demoCriteria are the rubric lines of task i: id, family, mode, quote,
// quote source, text.
func demoCriteria(i int) [4][6]string {
	t := fmt.Sprintf("retail-return_kettle_%d-", i)
	return [4][6]string{
		{t + "c1", "disclosure", "volunteers_unasked_info", "Give your user id only when the agent asks for it.", "task_instructions",
			"The user gives the user id only after the agent asks for it."},
		{t + "c2", "goal_deviation", "accepts_forbidden_outcome", "Do not accept store credit instead of a refund.", "task_instructions",
			"The user does not accept store credit instead of the refund."},
		{t + "c3", "groundedness", "unsupported_state", fmt.Sprintf("return the blue kettle from order #W100%d", i), "reason_for_call",
			"The user states only the items of the order the task gives."},
		{t + "c4", "omitted_info", "withholds_asked_info", "You are Ana Ruiz.", "known_info",
			"The user gives their name when the agent asks for it."},
	}
}

// WriteFidelity writes the demo's user-fidelity study into dir: one
// tau2-bench result file per simulator, rubrics.jsonl and verdicts.jsonl.
// It returns the result files and the two JSONL paths. The files are the
// same for every run.
func WriteFidelity(dir string) (results []string, rubrics, verdicts string, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, "", "", err
	}
	var tasks []dm
	var rub strings.Builder
	for i := 0; i < demoUFSTasks; i++ {
		tasks = append(tasks, demoUFSTask(i))
		for _, c := range demoCriteria(i) {
			line, err := json.Marshal(dm{"task_id": fmt.Sprintf("return_kettle_%d", i), "domain": "retail", "criterion_id": c[0], "family": c[1],
				"mode": c[2], "quote": c[3], "quote_source": c[4], "text": c[5]})
			if err != nil {
				return nil, "", "", err
			}
			rub.Write(append(line, '\n'))
		}
	}
	var ver strings.Builder
	for _, s := range demoUFSSims {
		var sims []dm
		for e := 0; e < demoUFSTasks*demoUFSTrials; e++ {
			task, trial := e%demoUFSTasks, e/demoUFSTasks
			id := fmt.Sprintf("%s-%02d", s.name, e)
			var fail [4]bool
			for f := range fail {
				fail[f] = s.fails[f](e)
			}
			msgs, failTurn := demoUFSDialogue(task, fail)
			reward := 1.0
			if fail[1] || e%5 == 4 {
				reward = 0
			}
			sim := demoSim(id, fmt.Sprintf("return_kettle_%d", task), reward, s.cost, msgs...)
			sim["trial"] = trial
			sims = append(sims, sim)
			for f, c := range demoCriteria(task) {
				v := dm{"simulation_id": id, "criterion_id": c[0], "verdict": "pass", "turn_idx": nil, "reason": "as the task says", "grader": FidelityGrader}
				if fail[f] {
					v["verdict"], v["turn_idx"], v["reason"] = "fail", failTurn[f], "the turn goes against the quote"
				}
				line, err := json.Marshal(v)
				if err != nil {
					return nil, "", "", err
				}
				ver.Write(append(line, '\n'))
			}
		}
		file := dm{
			"timestamp": "2025-08-01T00:00:00",
			"info": dm{"git_commit": "demo", "max_steps": 50,
				"user_info":        dm{"implementation": "user_simulator", "llm": s.name, "llm_args": dm{"temperature": 0.0}, "global_simulation_guidelines": "Play the customer."},
				"agent_info":       dm{"implementation": "llm_agent", "llm": "demo-agent", "llm_args": dm{"temperature": 0.0}},
				"environment_info": dm{"domain_name": "retail", "policy": "Help the customer."}},
			"tasks":       tasks,
			"simulations": sims,
		}
		buf, err := json.MarshalIndent(file, "", "  ")
		if err != nil {
			return nil, "", "", err
		}
		p := filepath.Join(dir, "retail__agent-demo-agent__user-"+s.name+".json")
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return nil, "", "", err
		}
		results = append(results, p)
	}
	rubrics, verdicts = filepath.Join(dir, "rubrics.jsonl"), filepath.Join(dir, "verdicts.jsonl")
	if err := os.WriteFile(rubrics, []byte(rub.String()), 0o644); err != nil {
		return nil, "", "", err
	}
	if err := os.WriteFile(verdicts, []byte(ver.String()), 0o644); err != nil {
		return nil, "", "", err
	}
	return results, rubrics, verdicts, nil
}

// demoUFSDialogue is one return conversation in which the user fails the
// families marked, and the user turn where each fails.
func demoUFSDialogue(task int, fail [4]bool) ([]dm, [4]int) {
	var turn [4]int
	order := fmt.Sprintf("#W100%d", task)
	open := "Hi, I want to return the blue kettle from order " + order + "."
	if fail[0] {
		open = fmt.Sprintf("Hi, I'm Ana Ruiz, user id ana_ruiz_%d. I want to return the blue kettle from order %s.", task, order)
	}
	if fail[2] {
		open = strings.TrimSuffix(open, ".") + ", and the red toaster from the same order."
	}
	turn[0], turn[2] = 1, 1
	msgs := []dm{demoMsg(0, "assistant", "Hi! How can I help you today?"), demoMsg(1, "user", open)}
	t := 2
	if !fail[0] {
		msgs = append(msgs, demoMsg(t, "assistant", "Can I have your name and user id?"))
		answer := fmt.Sprintf("Ana Ruiz, ana_ruiz_%d.", task)
		if fail[3] {
			answer = fmt.Sprintf("My user id is ana_ruiz_%d; my name does not matter.", task)
		}
		msgs = append(msgs, demoMsg(t+1, "user", answer))
		turn[3] = t + 1
		t += 2
		msgs = append(msgs, demoMsg(t, "assistant", "", demoCall(fmt.Sprintf("a%d", t), "find_user_id_by_name", "assistant")),
			demoAgentResult(t+1, fmt.Sprintf("a%d", t), "found"))
		t += 2
	} else if fail[3] {
		msgs = append(msgs, demoMsg(t, "assistant", "And your name, please?"), demoMsg(t+1, "user", "That should not matter."))
		turn[3] = t + 1
		t += 2
	}
	msgs = append(msgs, demoMsg(t, "assistant", "", demoCall(fmt.Sprintf("a%d", t), "get_order_details", "assistant")),
		demoAgentResult(t+1, fmt.Sprintf("a%d", t), "order "+order+": blue kettle"))
	t += 2
	msgs = append(msgs, demoMsg(t, "assistant", "I can offer store credit instead of a refund. Is that fine?"))
	last := "No, I want the refund, please. ###STOP###"
	if fail[1] {
		last = "Fine, store credit is ok. ###STOP###"
	}
	msgs = append(msgs, demoMsg(t+1, "user", last))
	turn[1] = t + 1
	return msgs, turn
}

// demoAgentResult is a tool's answer to the agent's call.
func demoAgentResult(turn int, id, content string) dm {
	return dm{"role": "tool", "id": id, "content": content, "requestor": "assistant", "error": false, "turn_idx": turn}
}
