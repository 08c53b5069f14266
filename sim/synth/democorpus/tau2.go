package democorpus

import (
	"encoding/json"
	"os"
	"path/filepath"
)

// The demo's tau2 sample: two tau2-bench result files (two user simulators,
// the same agent and tasks, so the reward range is the simulators') and one
// tau-bench v1 array. Some simulations trip each probe: a1 discloses
// unasked (P1, P1a), asserts airplane mode off while it is on (P3), claims
// a toggle it never made (P5) and misses the gold write (P2); a2 sends text
// with a call and two calls at once (P6); a3 states another customer's user
// id (P0) and stops on a confirmation (P4).

type dm = map[string]any

func demoMsg(turn int, role, content string, calls ...dm) dm {
	m := dm{"role": role, "content": content, "turn_idx": turn, "tool_calls": nil}
	if content == "" {
		m["content"] = nil
	}
	if len(calls) > 0 {
		m["tool_calls"] = calls
	}
	if role == "user" {
		m["usage"] = dm{"prompt_tokens": 900 + 40*turn, "completion_tokens": 30}
	}
	return m
}

func demoCall(id, name, requestor string) dm {
	return dm{"id": id, "name": name, "arguments": dm{}, "requestor": requestor}
}

func demoResult(turn int, id, content string) dm {
	return dm{"role": "tool", "id": id, "content": content, "requestor": "user", "error": false, "turn_idx": turn}
}

var demoTasks = []dm{
	{
		"id": "mobile_data_airplane_mode_on",
		"user_scenario": dm{"persona": nil, "instructions": dm{
			"domain": "telecom", "reason_for_call": "Your phone has no service.",
			"known_info": "You are John Smith with phone number 555-123-2002.", "unknown_info": nil,
			"task_instructions": "Follow the agent's instructions; ground answers in tool calls."}},
		"initial_state": dm{"initialization_actions": []dm{{"env_type": "user", "func_name": "turn_airplane_mode_on", "arguments": dm{}}}},
		"evaluation_criteria": dm{"actions": []dm{{"action_id": "a0", "requestor": "user", "name": "toggle_airplane_mode", "arguments": dm{}, "compare_args": nil}},
			"reward_basis": []string{"ENV_ASSERTION"}},
	},
	{
		"id": "cancel_reservation",
		"user_scenario": dm{"persona": nil, "instructions": dm{
			"domain": "telecom", "reason_for_call": "You want to cancel your plan change.",
			"known_info": "You are Mia Li. Your user id is mia_li_3668.", "unknown_info": nil,
			"task_instructions": "Confirm only after the agent lists the details."}},
		"evaluation_criteria": dm{"actions": []dm{}, "reward_basis": []string{"DB"}},
	},
}

func demoSim(id, task string, reward float64, cost float64, msgs ...dm) dm {
	return dm{"id": id, "task_id": task, "trial": 0, "termination_reason": "user_stop", "user_cost": cost, "agent_cost": 0.01,
		"duration": 30.0, "reward_info": dm{"reward": reward, "reward_basis": []string{"ENV_ASSERTION"}}, "messages": msgs}
}

func demoTau2File(user string, sims []dm) dm {
	return dm{
		"timestamp": "2025-08-01T00:00:00",
		"info": dm{"git_commit": "demo", "max_steps": 50,
			"user_info":        dm{"implementation": "user_simulator", "llm": user, "llm_args": dm{"temperature": 0.0}, "global_simulation_guidelines": "Play the customer."},
			"agent_info":       dm{"implementation": "llm_agent", "llm": "demo-agent", "llm_args": dm{"temperature": 0.0}},
			"environment_info": dm{"domain_name": "telecom", "policy": "Help the customer."}},
		"tasks":       demoTasks,
		"simulations": sims,
	}
}

// WriteTau2 writes the demo's tau2 sample into dir and returns the
// paths. The files are the same for every run.
func WriteTau2(dir string) ([]string, error) {
	greet := demoMsg(0, "assistant", "Hi! How can I help you today?")
	a := []dm{
		demoSim("demo-a1", "mobile_data_airplane_mode_on", 0, 0, greet,
			demoMsg(1, "user", "Hi, I'm John Smith, phone 555-123-2002. My phone has no service."),
			demoMsg(2, "assistant", "Please check your status bar. Is airplane mode on?"),
			demoMsg(3, "user", "I looked and airplane mode is off."),
			demoMsg(4, "assistant", "Please toggle airplane mode and tell me what you see."),
			demoMsg(5, "user", "I've turned off airplane mode, still no service. ###STOP###")),
		demoSim("demo-a2", "mobile_data_airplane_mode_on", 1, 0, greet,
			demoMsg(1, "user", "My phone has no service."),
			demoMsg(2, "assistant", "Can you give me your phone number?"),
			demoMsg(3, "user", "It is 555-123-2002."),
			demoMsg(4, "assistant", "Please check your status bar and toggle airplane mode."),
			demoMsg(5, "user", "Let me check.", demoCall("c1", "check_status_bar", "user")),
			demoResult(6, "c1", "Status Bar: ✈️ Airplane Mode | 🔋 80%"),
			demoMsg(7, "user", "", demoCall("c2", "toggle_airplane_mode", "user"), demoCall("c3", "check_status_bar", "user")),
			demoResult(8, "c2", "Airplane Mode is now OFF."),
			demoResult(9, "c3", "Status Bar: 📶⁴ Excellent | 5G | 📱 Data Enabled | 🔋 80%"),
			demoMsg(10, "user", "Airplane mode is off now and I have signal. Thanks! ###STOP###")),
		demoSim("demo-a3", "cancel_reservation", 0, 0, greet,
			demoMsg(1, "user", "I want to cancel my plan change."),
			demoMsg(2, "assistant", "Sure. What is your user id?"),
			demoMsg(3, "user", "My user id is omar_davis_3817."),
			demoMsg(4, "assistant", "I will cancel the plan change for omar. Shall I proceed?"),
			demoMsg(5, "user", "Yes, please proceed. ###STOP###")),
	}
	b := []dm{
		demoSim("demo-b1", "mobile_data_airplane_mode_on", 1, 0.004, greet,
			demoMsg(1, "user", "My phone has no service."),
			demoMsg(2, "assistant", "Can you give me your phone number?"),
			demoMsg(3, "user", "Sure, 555-123-2002."),
			demoMsg(4, "assistant", "Please toggle airplane mode."),
			demoMsg(5, "user", "", demoCall("c1", "toggle_airplane_mode", "user")),
			demoResult(6, "c1", "Airplane Mode is now OFF."),
			demoMsg(7, "user", "Done, it says airplane mode is off. ###STOP###")),
		demoSim("demo-b2", "cancel_reservation", 1, 0.003, greet,
			demoMsg(1, "user", "I want to cancel my plan change."),
			demoMsg(2, "assistant", "What is your user id?"),
			demoMsg(3, "user", "It is mia_li_3668."),
			demoMsg(4, "assistant", "Done: the plan change is cancelled."),
			demoMsg(5, "user", "Thank you. ###STOP###")),
	}
	v1 := []dm{
		{"task_id": 0, "trial": 0, "reward": 1.0, "traj": []dm{
			{"role": "system", "content": "Airline policy."},
			{"role": "user", "content": "Hi, I'm Mia Li, user id mia_li_3668, and I want to book a flight to Seattle."},
			{"role": "assistant", "content": "Booked."},
			{"role": "user", "content": "Thanks. ###STOP###"}},
			"info": dm{"task": dm{"user_id": "mia_li_3668", "instruction": "Your user id is mia_li_3668. You want to fly to Seattle.", "actions": []dm{}, "outputs": []string{}},
				"source": "user", "user_cost": 0.0, "reward_info": dm{"reward": 1.0, "info": dm{"r_actions": 1.0}}}},
		{"task_id": 1, "trial": 0, "reward": 0.0, "traj": []dm{
			{"role": "system", "content": "Airline policy."},
			{"role": "user", "content": "I need to change a flight."},
			{"role": "assistant", "content": "What is your user id?"},
			{"role": "user", "content": "raj_sanchez_7340. ###STOP###"}},
			"info": dm{"task": dm{"user_id": "raj_sanchez_7340", "instruction": "Your user id is raj_sanchez_7340. You want to change a flight.", "actions": []dm{}, "outputs": []string{}},
				"source": "user", "user_cost": 0.0, "reward_info": nil}},
	}
	files := []struct {
		name string
		v    any
	}{
		{"telecom__agent-demo-agent__user-demo-a.json", demoTau2File("demo-a", a)},
		{"telecom__agent-demo-agent__user-demo-b.json", demoTau2File("demo-b", b)},
		{"airline__agent-demo-agent__user-trait-calm.json", v1},
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	var paths []string
	for _, f := range files {
		buf, err := json.MarshalIndent(f.v, "", "  ")
		if err != nil {
			return nil, err
		}
		p := filepath.Join(dir, f.name)
		if err := os.WriteFile(p, buf, 0o644); err != nil {
			return nil, err
		}
		paths = append(paths, p)
	}
	return paths, nil
}
