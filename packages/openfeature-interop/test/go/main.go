// Runs the interop cases (JSON on stdin) with the OpenFeature Go SDK and the OFREP provider of
// go-sdk-contrib (from the Go module proxy) and prints what each evaluation's details said.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	ofrep "github.com/open-feature/go-sdk-contrib/providers/ofrep"
	"github.com/open-feature/go-sdk/openfeature"
)

type testCase struct {
	Name    string         `json:"name"`
	APIKey  string         `json:"apiKey"`
	Auth    string         `json:"auth"`
	Type    string         `json:"type"`
	Key     string         `json:"key"`
	Default any            `json:"default"`
	Context map[string]any `json:"context"`
}

type outcome struct {
	Name           string `json:"name"`
	Value          any    `json:"value"`
	Reason         string `json:"reason"`
	Variant        string `json:"variant"`
	ErrorCode      string `json:"errorCode,omitempty"`
	ProviderStatus string `json:"providerStatus"`
}

func main() {
	var spec struct {
		BaseURL string     `json:"baseUrl"`
		Cases   []testCase `json:"cases"`
	}
	if err := json.NewDecoder(os.Stdin).Decode(&spec); err != nil {
		fail(err)
	}
	ctx := context.Background()
	clients := map[string]*openfeature.Client{}
	outcomes := []outcome{}
	for _, c := range spec.Cases {
		// One provider per key and way of sending it, each in a domain of its own.
		domain := c.Auth + ":" + c.APIKey
		client, ok := clients[domain]
		if !ok {
			auth := ofrep.WithBearerToken(c.APIKey)
			if c.Auth == "x-api-key" {
				auth = ofrep.WithApiKeyAuth(c.APIKey)
			}
			if err := openfeature.SetNamedProviderAndWait(domain, ofrep.NewProvider(spec.BaseURL, auth)); err != nil {
				fail(err)
			}
			client = openfeature.NewClient(domain)
			clients[domain] = client
		}
		attributes := map[string]any{}
		targetingKey := ""
		for name, value := range c.Context {
			if name == "targetingKey" {
				targetingKey = value.(string)
			} else {
				attributes[name] = value
			}
		}
		evalCtx := openfeature.NewEvaluationContext(targetingKey, attributes)
		var value any
		var details openfeature.EvaluationDetails
		switch c.Type {
		case "boolean":
			d, _ := client.BooleanValueDetails(ctx, c.Key, c.Default.(bool), evalCtx)
			value, details = d.Value, d.EvaluationDetails
		case "string":
			d, _ := client.StringValueDetails(ctx, c.Key, c.Default.(string), evalCtx)
			value, details = d.Value, d.EvaluationDetails
		case "integer":
			d, _ := client.IntValueDetails(ctx, c.Key, int64(c.Default.(float64)), evalCtx)
			value, details = d.Value, d.EvaluationDetails
		case "float":
			d, _ := client.FloatValueDetails(ctx, c.Key, c.Default.(float64), evalCtx)
			value, details = d.Value, d.EvaluationDetails
		default:
			d, _ := client.ObjectValueDetails(ctx, c.Key, c.Default, evalCtx)
			value, details = d.Value, d.EvaluationDetails
		}
		outcomes = append(outcomes, outcome{
			Name:           c.Name,
			Value:          value,
			Reason:         string(details.Reason),
			Variant:        details.Variant,
			ErrorCode:      string(details.ErrorCode),
			ProviderStatus: string(client.State()),
		})
	}
	openfeature.Shutdown()
	if err := json.NewEncoder(os.Stdout).Encode(outcomes); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, err)
	os.Exit(1)
}
