package coord

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
)

// shape is what the coordinator understands of a request's data, to hold
// answers to it: the tool calls of a HITL-middleware request (what agents'
// hooks put up) and the decisions each allows. Data of any other shape is
// passed through, and so is any answer to it.
type shape struct {
	tools   []string
	allowed [][]string // per tool call; nil: the data is not middleware-shaped
}

func shapeOf(data json.RawMessage) shape {
	var req struct {
		ActionRequests []struct {
			Name string `json:"name"`
		} `json:"action_requests"`
		ReviewConfigs []struct {
			ActionName       string   `json:"action_name"`
			AllowedDecisions []string `json:"allowed_decisions"`
		} `json:"review_configs"`
	}
	if json.Unmarshal(data, &req) != nil || len(req.ActionRequests) == 0 {
		return shape{}
	}
	var sh shape
	for i, a := range req.ActionRequests {
		sh.tools = append(sh.tools, a.Name)
		var allowed []string
		if i < len(req.ReviewConfigs) && req.ReviewConfigs[i].ActionName == a.Name {
			allowed = req.ReviewConfigs[i].AllowedDecisions
		} else {
			for _, rc := range req.ReviewConfigs {
				if rc.ActionName == a.Name {
					allowed = rc.AllowedDecisions
					break
				}
			}
		}
		sh.allowed = append(sh.allowed, append([]string{}, allowed...))
	}
	return sh
}

// decisionSummary is what check learned of an answer.
type decisionSummary struct {
	rejects bool // some tool call is rejected
}

// check refuses an answer the request does not allow: a decision its review
// config does not list (an edit of a Codex request), an edit whose input is
// not an object or renames the tool, a count of decisions that is not one
// per tool call.
func (sh shape) check(resp json.RawMessage) (decisionSummary, error) {
	var d decisionSummary
	if sh.allowed == nil {
		return d, nil
	}
	var r struct {
		Decisions []struct {
			Type          string          `json:"type"`
			EditedAction  *editedAction   `json:"edited_action"`
			EditedActionJ *editedAction   `json:"editedAction"`
			EditedArgs    json.RawMessage `json:"edited_args"`
		} `json:"decisions"`
	}
	if err := json.Unmarshal(resp, &r); err != nil {
		return d, fmt.Errorf("the response is not {\"decisions\": [...]}: %v", err)
	}
	if len(r.Decisions) != len(sh.tools) {
		return d, fmt.Errorf("the response has %d decisions for %d tool calls", len(r.Decisions), len(sh.tools))
	}
	for i, dec := range r.Decisions {
		if !slices.Contains(sh.allowed[i], dec.Type) {
			return d, fmt.Errorf("%s does not allow %q for %s (it allows %v)", "the request", dec.Type, sh.tools[i], sh.allowed[i])
		}
		switch dec.Type {
		case "reject":
			d.rejects = true
		case "edit":
			ea := dec.EditedAction
			if ea == nil {
				ea = dec.EditedActionJ
			}
			args := dec.EditedArgs
			if ea != nil {
				if ea.Name != "" && ea.Name != sh.tools[i] {
					return d, fmt.Errorf("an edit cannot rename %s to %s", sh.tools[i], ea.Name)
				}
				args = ea.Args
			}
			if !bytes.HasPrefix(bytes.TrimSpace(args), []byte("{")) {
				return d, fmt.Errorf("the edited input of %s must be a JSON object", sh.tools[i])
			}
		}
	}
	return d, nil
}

type editedAction struct {
	Name string          `json:"name"`
	Args json.RawMessage `json:"args"`
}
