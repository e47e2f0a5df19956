package client

import "encoding/json"

type inboxRequest struct {
	ActionRequest *struct {
		Action string          `json:"action"`
		Args   json.RawMessage `json:"args"`
	} `json:"action_request"`
	Config struct {
		AllowIgnore  bool `json:"allow_ignore"`
		AllowRespond bool `json:"allow_respond"`
		AllowEdit    bool `json:"allow_edit"`
		AllowAccept  bool `json:"allow_accept"`
	} `json:"config"`
	Description *string `json:"description"`
}

func parseInbox(value json.RawMessage, list bool) (Payload, bool) {
	var reqs []inboxRequest
	if list {
		if json.Unmarshal(value, &reqs) != nil {
			return Payload{}, false
		}
	} else {
		var one inboxRequest
		if json.Unmarshal(value, &one) != nil {
			return Payload{}, false
		}
		reqs = []inboxRequest{one}
	}
	if len(reqs) == 0 {
		return Payload{}, false
	}
	p := Payload{Schema: SchemaAgentInbox, wire: wire{inboxList: list}}
	for _, r := range reqs {
		if r.ActionRequest == nil {
			return Payload{}, false
		}
		a := Action{Name: r.ActionRequest.Action, Args: OrEmptyObject(r.ActionRequest.Args)}
		if r.Description != nil {
			a.Description = *r.Description
		}
		for _, allow := range []struct {
			on bool
			t  DecisionType
		}{{r.Config.AllowAccept, Approve}, {r.Config.AllowEdit, Edit}, {r.Config.AllowRespond, Respond}, {r.Config.AllowIgnore, Ignore}} {
			if allow.on {
				a.Allowed = append(a.Allowed, allow.t)
			}
		}
		p.Actions = append(p.Actions, a)
	}
	p.Title = actionsTitle(p.Actions)
	if len(p.Actions) == 1 {
		p.Description = p.Actions[0].Description
	}
	return p, true
}
