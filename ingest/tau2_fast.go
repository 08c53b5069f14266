package ingest

import (
	"bytes"
	"encoding/json"
	"errors"
	"strconv"
	"strings"
	"unsafe"

	"github.com/go-json-experiment/json/jsontext"
)

// The fast pass's reader of a tau2 simulation (decodeT2Sim) and of a
// tau-bench v1 episode (decodeT1Episode): the tokens of
// the decoder (jsontext, with fastOptions: UTF-8 and repeated names
// checked there) set the fields of t2Sim directly, as
// jsonv2.UnmarshalDecode with fastOptions does through reflection, at
// about half its CPU (they are most of a tau2 ingest's input).
// It reads as encoding/json does: a name matches its field exactly or
// else without regard to case (strings.EqualFold), an unknown name is
// skipped, null leaves a pointer or slice nil and a string "", and a
// json.RawMessage gets the value's bytes as written (null included).
// Whatever it does not read that way it refuses (errFastSim): a field set
// twice (a name repeated in another case), a value of another JSON type
// than its field's, a number that does not fit, a null element of an
// array. The fast pass then fails and the exact pass reads the file,
// whose errors the user gets: none of this pass's words reach them.

// errFastSim is the fast simulation reader's refusal.
var errFastSim = errors.New("fast pass: simulation not read (the exact pass reads it)")

// fastField is a field of T: its JSON name and how its value is read.
type fastField[T any] struct {
	name string
	read func(d *jsontext.Decoder, v *T) error
}

// fastFields are the fields of a struct type, by name.
type fastFields[T any] struct {
	list  []fastField[T]
	index map[string]int
}

func newFastFields[T any](list ...fastField[T]) *fastFields[T] {
	f := &fastFields[T]{list: list, index: map[string]int{}}
	for i, fl := range list {
		f.index[fl.name] = i
	}
	if len(list) > 64 {
		panic("fastFields: more than 64 fields")
	}
	return f
}

// lookup returns the index of the field name matches, or -1.
func (f *fastFields[T]) lookup(name []byte) int {
	if i, ok := f.index[string(name)]; ok {
		return i
	}
	for i, fl := range f.list {
		if strings.EqualFold(string(name), fl.name) {
			return i
		}
	}
	return -1
}

// readObject reads an object into v; null leaves it alone.
func readObject[T any](d *jsontext.Decoder, v *T, f *fastFields[T]) error {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return err
	}
	if d.PeekKind() != '{' {
		return errFastSim
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	var seen uint64
	for d.PeekKind() == '"' {
		name, err := d.ReadValue()
		if err != nil {
			return err
		}
		name, err = unquoteName(name)
		if err != nil {
			return err
		}
		i := f.lookup(name)
		if i < 0 {
			if err := d.SkipValue(); err != nil {
				return err
			}
			continue
		}
		if seen&(1<<i) != 0 {
			return errFastSim
		}
		seen |= 1 << i
		if err := f.list[i].read(d, v); err != nil {
			return err
		}
	}
	t, err := d.ReadToken()
	if err != nil {
		return err
	}
	if t.Kind() != '}' {
		return errFastSim
	}
	return nil
}

// unquoteName returns the name a quoted object name holds.
func unquoteName(q []byte) ([]byte, error) {
	q = q[1 : len(q)-1]
	if bytes.IndexByte(q, '\\') < 0 {
		return q, nil
	}
	return jsontext.AppendUnquote(nil, append([]byte{'"'}, append(q, '"')...))
}

// readPtr reads a value of the pointer field p: null leaves it nil.
func readPtr[T any](d *jsontext.Decoder, p **T, read func(*jsontext.Decoder, *T) error) error {
	if d.PeekKind() == 'n' {
		_, err := d.ReadToken()
		return err
	}
	v := new(T)
	if err := read(d, v); err != nil {
		return err
	}
	*p = v
	return nil
}

// readSlice reads an array into s (null leaves it nil; [] makes it
// empty, not nil); a null element is refused.
func readSlice[T any](d *jsontext.Decoder, s *[]T, read func(*jsontext.Decoder, *T) error) error {
	switch d.PeekKind() {
	case 'n':
		_, err := d.ReadToken()
		return err
	case '[':
	default:
		return errFastSim
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	out := []T{}
	for {
		switch d.PeekKind() {
		case ']':
			if _, err := d.ReadToken(); err != nil {
				return err
			}
			*s = out
			return nil
		case 'n', 0:
			if _, err := d.ReadToken(); err != nil {
				return err
			}
			return errFastSim
		}
		out = append(out, *new(T))
		if err := read(d, &out[len(out)-1]); err != nil {
			return err
		}
	}
}

// readString reads a string (null leaves s alone).
func readString(d *jsontext.Decoder, s *string) error {
	switch d.PeekKind() {
	case 'n':
		_, err := d.ReadToken()
		return err
	case '"':
	default:
		return errFastSim
	}
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	q := v[1 : len(v)-1]
	if bytes.IndexByte(q, '\\') < 0 {
		*s = string(q)
		return nil
	}
	b, err := jsontext.AppendUnquote(nil, v)
	if err != nil {
		return err
	}
	*s = unsafe.String(unsafe.SliceData(b), len(b)) // b is this string's alone
	return nil
}

func readStringPtr(d *jsontext.Decoder, p **string) error { return readPtr(d, p, readString) }

// readNumber reads a number's text.
func readNumber(d *jsontext.Decoder) ([]byte, error) {
	if d.PeekKind() != '0' {
		return nil, errFastSim
	}
	return d.ReadValue()
}

func readInt(d *jsontext.Decoder, n *int) error {
	v, err := readNumber(d)
	if err != nil {
		return err
	}
	x, err := strconv.ParseInt(string(v), 10, strconv.IntSize)
	if err != nil {
		return errFastSim // a fraction, an exponent, out of range
	}
	*n = int(x)
	return nil
}

func readInt64(d *jsontext.Decoder, n *int64) error {
	v, err := readNumber(d)
	if err != nil {
		return err
	}
	x, err := strconv.ParseInt(string(v), 10, 64)
	if err != nil {
		return errFastSim
	}
	*n = x
	return nil
}

func readFloat(d *jsontext.Decoder, f *float64) error {
	v, err := readNumber(d)
	if err != nil {
		return err
	}
	x, err := strconv.ParseFloat(string(v), 64)
	if err != nil {
		return errFastSim // out of range
	}
	*f = x
	return nil
}

func readBool(d *jsontext.Decoder, b *bool) error {
	switch d.PeekKind() {
	case 't', 'f':
	default:
		return errFastSim
	}
	t, err := d.ReadToken()
	if err != nil {
		return err
	}
	*b = t.Bool()
	return nil
}

func readIntPtr(d *jsontext.Decoder, p **int) error       { return readPtr(d, p, readInt) }
func readInt64Ptr(d *jsontext.Decoder, p **int64) error   { return readPtr(d, p, readInt64) }
func readFloatPtr(d *jsontext.Decoder, p **float64) error { return readPtr(d, p, readFloat) }
func readBoolPtr(d *jsontext.Decoder, p **bool) error     { return readPtr(d, p, readBool) }

// readRaw reads any value as its bytes (null as the four bytes).
func readRaw(d *jsontext.Decoder, m *json.RawMessage) error {
	v, err := d.ReadValue()
	if err != nil {
		return err
	}
	*m = append(json.RawMessage(nil), v...)
	return nil
}

// The fields of each type, as its json tags name them.
var (
	fastToolCall = newFastFields(
		fastField[t2ToolCall]{"id", func(d *jsontext.Decoder, v *t2ToolCall) error { return readStringPtr(d, &v.ID) }},
		fastField[t2ToolCall]{"name", func(d *jsontext.Decoder, v *t2ToolCall) error { return readString(d, &v.Name) }},
		fastField[t2ToolCall]{"arguments", func(d *jsontext.Decoder, v *t2ToolCall) error { return readRaw(d, &v.Arguments) }},
		fastField[t2ToolCall]{"requestor", func(d *jsontext.Decoder, v *t2ToolCall) error { return readStringPtr(d, &v.Requestor) }},
	)
	fastUsage = newFastFields(
		fastField[t2Usage]{"prompt_tokens", func(d *jsontext.Decoder, v *t2Usage) error { return readInt64Ptr(d, &v.PromptTokens) }},
		fastField[t2Usage]{"completion_tokens", func(d *jsontext.Decoder, v *t2Usage) error { return readInt64Ptr(d, &v.CompletionTokens) }},
	)
	fastMessage = newFastFields(
		fastField[t2Message]{"role", func(d *jsontext.Decoder, v *t2Message) error { return readString(d, &v.Role) }},
		fastField[t2Message]{"content", func(d *jsontext.Decoder, v *t2Message) error { return readStringPtr(d, &v.Content) }},
		fastField[t2Message]{"tool_calls", func(d *jsontext.Decoder, v *t2Message) error {
			return readSlice(d, &v.ToolCalls, func(d *jsontext.Decoder, c *t2ToolCall) error { return readObject(d, c, fastToolCall) })
		}},
		fastField[t2Message]{"turn_idx", func(d *jsontext.Decoder, v *t2Message) error { return readIntPtr(d, &v.TurnIdx) }},
		fastField[t2Message]{"timestamp", func(d *jsontext.Decoder, v *t2Message) error { return readStringPtr(d, &v.Timestamp) }},
		fastField[t2Message]{"cost", func(d *jsontext.Decoder, v *t2Message) error { return readFloatPtr(d, &v.Cost) }},
		fastField[t2Message]{"usage", func(d *jsontext.Decoder, v *t2Message) error {
			return readPtr(d, &v.Usage, func(d *jsontext.Decoder, u *t2Usage) error { return readObject(d, u, fastUsage) })
		}},
		fastField[t2Message]{"id", func(d *jsontext.Decoder, v *t2Message) error { return readStringPtr(d, &v.ID) }},
		fastField[t2Message]{"requestor", func(d *jsontext.Decoder, v *t2Message) error { return readStringPtr(d, &v.Requestor) }},
		fastField[t2Message]{"error", func(d *jsontext.Decoder, v *t2Message) error { return readBoolPtr(d, &v.Error) }},
		fastField[t2Message]{"is_audio", func(d *jsontext.Decoder, v *t2Message) error { return readBoolPtr(d, &v.IsAudio) }},
	)
	fastDBCheck = newFastFields(
		fastField[t2DBCheck]{"db_match", func(d *jsontext.Decoder, v *t2DBCheck) error { return readBoolPtr(d, &v.DBMatch) }},
		fastField[t2DBCheck]{"db_reward", func(d *jsontext.Decoder, v *t2DBCheck) error { return readFloatPtr(d, &v.DBReward) }},
	)
	fastEnvCheck = newFastFields(
		fastField[t2EnvCheck]{"env_assertion", func(d *jsontext.Decoder, v *t2EnvCheck) error { return readRaw(d, &v.EnvAssertion) }},
		fastField[t2EnvCheck]{"met", func(d *jsontext.Decoder, v *t2EnvCheck) error { return readBoolPtr(d, &v.Met) }},
		fastField[t2EnvCheck]{"reward", func(d *jsontext.Decoder, v *t2EnvCheck) error { return readFloatPtr(d, &v.Reward) }},
	)
	fastActionCheck = newFastFields(
		fastField[t2ActionCheck]{"action", func(d *jsontext.Decoder, v *t2ActionCheck) error { return readRaw(d, &v.Action) }},
		fastField[t2ActionCheck]{"action_match", func(d *jsontext.Decoder, v *t2ActionCheck) error { return readBoolPtr(d, &v.ActionMatch) }},
		fastField[t2ActionCheck]{"action_reward", func(d *jsontext.Decoder, v *t2ActionCheck) error { return readFloatPtr(d, &v.Reward) }},
	)
	fastReward = newFastFields(
		fastField[t2Reward]{"reward", func(d *jsontext.Decoder, v *t2Reward) error { return readFloatPtr(d, &v.Reward) }},
		fastField[t2Reward]{"reward_basis", func(d *jsontext.Decoder, v *t2Reward) error { return readRaw(d, &v.RewardBasis) }},
		fastField[t2Reward]{"reward_breakdown", func(d *jsontext.Decoder, v *t2Reward) error { return readRaw(d, &v.RewardBreakdown) }},
		fastField[t2Reward]{"db_check", func(d *jsontext.Decoder, v *t2Reward) error {
			return readPtr(d, &v.DBCheck, func(d *jsontext.Decoder, c *t2DBCheck) error { return readObject(d, c, fastDBCheck) })
		}},
		fastField[t2Reward]{"env_assertions", func(d *jsontext.Decoder, v *t2Reward) error {
			return readSlice(d, &v.EnvAssertions, func(d *jsontext.Decoder, c *t2EnvCheck) error { return readObject(d, c, fastEnvCheck) })
		}},
		fastField[t2Reward]{"action_checks", func(d *jsontext.Decoder, v *t2Reward) error {
			return readSlice(d, &v.ActionChecks, func(d *jsontext.Decoder, c *t2ActionCheck) error { return readObject(d, c, fastActionCheck) })
		}},
		fastField[t2Reward]{"communicate_checks", func(d *jsontext.Decoder, v *t2Reward) error {
			return readSlice(d, &v.CommunicateChecks, readRaw)
		}},
		fastField[t2Reward]{"nl_assertions", func(d *jsontext.Decoder, v *t2Reward) error {
			return readSlice(d, &v.NLAssertions, readRaw)
		}},
	)
	fastTick = newFastFields(
		fastField[t2Tick]{"tick_id", func(d *jsontext.Decoder, v *t2Tick) error { return readIntPtr(d, &v.TickID) }},
		fastField[t2Tick]{"timestamp", func(d *jsontext.Decoder, v *t2Tick) error { return readStringPtr(d, &v.Timestamp) }},
		fastField[t2Tick]{"agent_chunk", func(d *jsontext.Decoder, v *t2Tick) error { return readPtr(d, &v.AgentChunk, readMessage) }},
		fastField[t2Tick]{"user_chunk", func(d *jsontext.Decoder, v *t2Tick) error { return readPtr(d, &v.UserChunk, readMessage) }},
		fastField[t2Tick]{"agent_tool_calls", func(d *jsontext.Decoder, v *t2Tick) error { return readSlice(d, &v.AgentToolCalls, readToolCall) }},
		fastField[t2Tick]{"user_tool_calls", func(d *jsontext.Decoder, v *t2Tick) error { return readSlice(d, &v.UserToolCalls, readToolCall) }},
		fastField[t2Tick]{"agent_tool_results", func(d *jsontext.Decoder, v *t2Tick) error { return readSlice(d, &v.AgentToolResults, readMessage) }},
		fastField[t2Tick]{"user_tool_results", func(d *jsontext.Decoder, v *t2Tick) error { return readSlice(d, &v.UserToolResults, readMessage) }},
	)
	fastAgentUsage = newFastFields(
		fastField[t2AgentUsage]{"cost", func(d *jsontext.Decoder, v *t2AgentUsage) error { return readFloatPtr(d, &v.Cost) }},
	)
	fastSim = newFastFields(
		fastField[t2Sim]{"id", func(d *jsontext.Decoder, v *t2Sim) error { return readStringPtr(d, &v.ID) }},
		fastField[t2Sim]{"task_id", func(d *jsontext.Decoder, v *t2Sim) error { return readRaw(d, &v.TaskID) }},
		fastField[t2Sim]{"trial", func(d *jsontext.Decoder, v *t2Sim) error { return readIntPtr(d, &v.Trial) }},
		fastField[t2Sim]{"seed", func(d *jsontext.Decoder, v *t2Sim) error { return readInt64Ptr(d, &v.Seed) }},
		fastField[t2Sim]{"start_time", func(d *jsontext.Decoder, v *t2Sim) error { return readStringPtr(d, &v.StartTime) }},
		fastField[t2Sim]{"timestamp", func(d *jsontext.Decoder, v *t2Sim) error { return readStringPtr(d, &v.Timestamp) }},
		fastField[t2Sim]{"duration", func(d *jsontext.Decoder, v *t2Sim) error { return readFloatPtr(d, &v.Duration) }},
		fastField[t2Sim]{"termination_reason", func(d *jsontext.Decoder, v *t2Sim) error { return readStringPtr(d, &v.TerminationReason) }},
		fastField[t2Sim]{"agent_cost", func(d *jsontext.Decoder, v *t2Sim) error { return readFloatPtr(d, &v.AgentCost) }},
		fastField[t2Sim]{"agent_usage", func(d *jsontext.Decoder, v *t2Sim) error {
			return readPtr(d, &v.AgentUsage, func(d *jsontext.Decoder, u *t2AgentUsage) error { return readObject(d, u, fastAgentUsage) })
		}},
		fastField[t2Sim]{"user_cost", func(d *jsontext.Decoder, v *t2Sim) error { return readFloatPtr(d, &v.UserCost) }},
		fastField[t2Sim]{"reward_info", func(d *jsontext.Decoder, v *t2Sim) error {
			return readPtr(d, &v.RewardInfo, func(d *jsontext.Decoder, r *t2Reward) error { return readObject(d, r, fastReward) })
		}},
		fastField[t2Sim]{"messages", func(d *jsontext.Decoder, v *t2Sim) error {
			return readPtr(d, &v.Messages, func(d *jsontext.Decoder, m *[]t2Message) error { return readSlice(d, m, readMessage) })
		}},
		fastField[t2Sim]{"ticks", func(d *jsontext.Decoder, v *t2Sim) error {
			return readPtr(d, &v.Ticks, func(d *jsontext.Decoder, t *[]t2Tick) error {
				return readSlice(d, t, func(d *jsontext.Decoder, t *t2Tick) error { return readObject(d, t, fastTick) })
			})
		}},
		fastField[t2Sim]{"hallucination_retries_used", func(d *jsontext.Decoder, v *t2Sim) error { return readIntPtr(d, &v.HallucinationRetriesUsed) }},
		fastField[t2Sim]{"user_only_review", func(d *jsontext.Decoder, v *t2Sim) error { return readRaw(d, &v.UserOnlyReview) }},
		fastField[t2Sim]{"review", func(d *jsontext.Decoder, v *t2Sim) error { return readRaw(d, &v.Review) }},
		fastField[t2Sim]{"mode", func(d *jsontext.Decoder, v *t2Sim) error { return readRaw(d, &v.Mode) }},
	)
)

var (
	fastT1Function = newFastFields(
		fastField[t1Function]{"name", func(d *jsontext.Decoder, v *t1Function) error { return readString(d, &v.Name) }},
		fastField[t1Function]{"arguments", func(d *jsontext.Decoder, v *t1Function) error { return readString(d, &v.Arguments) }},
	)
	fastT1ToolCall = newFastFields(
		fastField[t1ToolCall]{"id", func(d *jsontext.Decoder, v *t1ToolCall) error { return readStringPtr(d, &v.ID) }},
		fastField[t1ToolCall]{"function", func(d *jsontext.Decoder, v *t1ToolCall) error { return readObject(d, &v.Function, fastT1Function) }},
	)
	fastT1Message = newFastFields(
		fastField[t1Message]{"role", func(d *jsontext.Decoder, v *t1Message) error { return readString(d, &v.Role) }},
		fastField[t1Message]{"content", func(d *jsontext.Decoder, v *t1Message) error { return readStringPtr(d, &v.Content) }},
		fastField[t1Message]{"tool_calls", func(d *jsontext.Decoder, v *t1Message) error {
			return readSlice(d, &v.ToolCalls, func(d *jsontext.Decoder, c *t1ToolCall) error { return readObject(d, c, fastT1ToolCall) })
		}},
		fastField[t1Message]{"tool_call_id", func(d *jsontext.Decoder, v *t1Message) error { return readStringPtr(d, &v.ToolCallID) }},
	)
	fastT1RewardInfo = newFastFields(
		fastField[t1RewardInfo]{"reward", func(d *jsontext.Decoder, v *t1RewardInfo) error { return readFloatPtr(d, &v.Reward) }},
		fastField[t1RewardInfo]{"info", func(d *jsontext.Decoder, v *t1RewardInfo) error { return readRaw(d, &v.Info) }},
	)
	fastT1Info = newFastFields(
		fastField[t1Info]{"task", func(d *jsontext.Decoder, v *t1Info) error { return readRaw(d, &v.Task) }},
		fastField[t1Info]{"source", func(d *jsontext.Decoder, v *t1Info) error { return readStringPtr(d, &v.Source) }},
		fastField[t1Info]{"user_cost", func(d *jsontext.Decoder, v *t1Info) error { return readFloatPtr(d, &v.UserCost) }},
		fastField[t1Info]{"reward_info", func(d *jsontext.Decoder, v *t1Info) error {
			return readPtr(d, &v.RewardInfo, func(d *jsontext.Decoder, r *t1RewardInfo) error { return readObject(d, r, fastT1RewardInfo) })
		}},
	)
	fastT1Episode = newFastFields(
		fastField[t1Episode]{"task_id", func(d *jsontext.Decoder, v *t1Episode) error { return readRaw(d, &v.TaskID) }},
		fastField[t1Episode]{"trial", func(d *jsontext.Decoder, v *t1Episode) error { return readIntPtr(d, &v.Trial) }},
		fastField[t1Episode]{"reward", func(d *jsontext.Decoder, v *t1Episode) error { return readFloatPtr(d, &v.Reward) }},
		fastField[t1Episode]{"traj", func(d *jsontext.Decoder, v *t1Episode) error {
			return readPtr(d, &v.Traj, func(d *jsontext.Decoder, m *[]t1Message) error {
				return readSlice(d, m, func(d *jsontext.Decoder, m *t1Message) error { return readObject(d, m, fastT1Message) })
			})
		}},
		fastField[t1Episode]{"info", func(d *jsontext.Decoder, v *t1Episode) error {
			return readPtr(d, &v.Info, func(d *jsontext.Decoder, i *t1Info) error { return readObject(d, i, fastT1Info) })
		}},
	)
)

// decodeT1Episode reads one tau-bench v1 episode (an object) into e.
func decodeT1Episode(d *jsontext.Decoder, e *t1Episode) error {
	if d.PeekKind() != '{' {
		return errFastSim
	}
	return readObject(d, e, fastT1Episode)
}

func readMessage(d *jsontext.Decoder, m *t2Message) error   { return readObject(d, m, fastMessage) }
func readToolCall(d *jsontext.Decoder, c *t2ToolCall) error { return readObject(d, c, fastToolCall) }

// decodeT2Sim reads one simulation (an object) into sim.
func decodeT2Sim(d *jsontext.Decoder, sim *t2Sim) error {
	if d.PeekKind() != '{' {
		return errFastSim
	}
	return readObject(d, sim, fastSim)
}
