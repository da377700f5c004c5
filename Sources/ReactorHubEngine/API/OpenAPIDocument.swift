/// `GET /api/v1/openapi.json`: the HTTP API (API.md) as an OpenAPI 3.1 document. Tests
/// validate it with an independent validator (PyPI `openapi-spec-validator`).
enum OpenAPIDocument {
    /// The document's bytes, as served.
    static let bytes = Array(text.utf8)

    static let text = #"""
    {
      "openapi": "3.1.0",
      "info": {
        "title": "ReactorHub HTTP API",
        "version": "1",
        "summary": "Actions and state of shared reactors over HTTP, live events over Server-Sent Events.",
        "description": "Every endpoint reaches the same reactor instances as the WebSocket protocol, with the same tokens, rights and limits. See docs/api-http.md."
      },
      "servers": [{"url": "/"}],
      "security": [{}, {"bearer": []}],
      "paths": {
        "/api/v1/kinds": {
          "get": {
            "operationId": "listKinds",
            "summary": "The reactor kinds: each action with its members and their JSON types, and the pulses (hello.reactors).",
            "responses": {
              "200": {"description": "The kinds.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Kinds"}}}},
              "401": {"$ref": "#/components/responses/Unauthenticated"}
            }
          }
        },
        "/api/v1/openapi.json": {
          "get": {
            "operationId": "getOpenAPI",
            "summary": "This document.",
            "responses": {"200": {"description": "The OpenAPI document.", "content": {"application/json": {"schema": {"type": "object"}}}}}
          }
        },
        "/api/v1/reactors/{kind}/{id}": {
          "parameters": [{"$ref": "#/components/parameters/Kind"}, {"$ref": "#/components/parameters/Id"}],
          "get": {
            "operationId": "getState",
            "summary": "The instance's state, created like a join when it is not in memory. Needs the read right.",
            "parameters": [{"name": "If-None-Match", "in": "header", "required": false, "schema": {"type": "string"}, "description": "An ETag from an earlier answer: 304 while it is still current."}],
            "responses": {
              "200": {
                "description": "The state at its version.",
                "headers": {"ETag": {"$ref": "#/components/headers/ETag"}},
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/State"}}}
              },
              "304": {"description": "Not modified since the ETag given.", "headers": {"ETag": {"$ref": "#/components/headers/ETag"}}},
              "401": {"$ref": "#/components/responses/Unauthenticated"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "503": {"$ref": "#/components/responses/Overloaded"}
            }
          }
        },
        "/api/v1/reactors/{kind}/{id}/actions": {
          "parameters": [{"$ref": "#/components/parameters/Kind"}, {"$ref": "#/components/parameters/Id"}],
          "post": {
            "operationId": "act",
            "summary": "Dispatches one action; answered once it is accepted and its immediate mutations are applied. Needs the act right.",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ActionRequest"}}}},
            "responses": {
              "200": {"description": "Accepted and applied (or a repeat of an id: the first answer, duplicate).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Ack"}}}},
              "400": {"$ref": "#/components/responses/BadRequest"},
              "401": {"$ref": "#/components/responses/Unauthenticated"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "413": {"$ref": "#/components/responses/TooLarge"},
              "429": {"$ref": "#/components/responses/RateLimited"},
              "503": {"$ref": "#/components/responses/Overloaded"}
            }
          }
        },
        "/api/v1/actions": {
          "post": {
            "operationId": "actInBatch",
            "summary": "Dispatches up to 100 actions, each on its own (no transaction across reactors); the results come in order.",
            "requestBody": {"required": true, "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchRequest"}}}},
            "responses": {
              "200": {"description": "One result per action, in order: an ack or an error body.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/BatchResults"}}}},
              "400": {"$ref": "#/components/responses/BadRequest"},
              "401": {"$ref": "#/components/responses/Unauthenticated"},
              "413": {"$ref": "#/components/responses/TooLarge"}
            }
          }
        },
        "/api/v1/reactors/{kind}/{id}/patches": {
          "parameters": [{"$ref": "#/components/parameters/Kind"}, {"$ref": "#/components/parameters/Id"}],
          "get": {
            "operationId": "getPatches",
            "summary": "Every patch after a version that the history still holds. Needs the read right.",
            "parameters": [
              {"name": "since", "in": "query", "required": true, "schema": {"type": "integer", "minimum": 0}},
              {"name": "epoch", "in": "query", "required": true, "schema": {"type": "string", "minLength": 1}}
            ],
            "responses": {
              "200": {"description": "The patches, oldest first.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Patches"}}}},
              "400": {"$ref": "#/components/responses/BadRequest"},
              "401": {"$ref": "#/components/responses/Unauthenticated"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "410": {"description": "The epoch differs or the history no longer reaches back: get the state instead.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/HistoryGone"}}}}
            }
          }
        },
        "/api/v1/reactors/{kind}/{id}/events": {
          "parameters": [{"$ref": "#/components/parameters/Kind"}, {"$ref": "#/components/parameters/Id"}],
          "get": {
            "operationId": "streamEvents",
            "summary": "A Server-Sent Events stream: snapshot, patch, pulse and presence events, each with id EPOCH:VERSION and the WebSocket message as data. Needs the read right.",
            "parameters": [
              {"name": "Last-Event-ID", "in": "header", "required": false, "schema": {"type": "string"}, "description": "EPOCH:VERSION: continue after it with the missed patches, or get a fresh snapshot."},
              {"name": "token", "in": "query", "required": false, "schema": {"type": "string"}, "description": "The JWT, for clients that cannot send headers (EventSource)."}
            ],
            "responses": {
              "200": {"description": "The stream; a comment line keeps it open at least every 15 s.", "content": {"text/event-stream": {"schema": {"type": "string"}}}},
              "401": {"$ref": "#/components/responses/Unauthenticated"},
              "403": {"$ref": "#/components/responses/Forbidden"},
              "404": {"$ref": "#/components/responses/NotFound"},
              "503": {"$ref": "#/components/responses/Overloaded"}
            }
          }
        }
      },
      "components": {
        "securitySchemes": {
          "bearer": {"type": "http", "scheme": "bearer", "bearerFormat": "JWT"}
        },
        "parameters": {
          "Kind": {"name": "kind", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[a-z][a-z0-9-]{0,31}$"}},
          "Id": {"name": "id", "in": "path", "required": true, "schema": {"type": "string", "pattern": "^[A-Za-z0-9._-]{1,64}$"}}
        },
        "headers": {
          "ETag": {"description": "\"EPOCH:VERSION\" of the state.", "schema": {"type": "string"}},
          "RetryAfter": {"description": "Seconds to wait before retrying.", "schema": {"type": "integer", "minimum": 1}}
        },
        "responses": {
          "BadRequest": {"description": "bad_json, bad_request, invalid_action or unknown_action; nothing changed.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}},
          "Unauthenticated": {
            "description": "No token, or a refused one; the message names the reason (expired, bad signature, malformed, revoked, …).",
            "headers": {"WWW-Authenticate": {"schema": {"type": "string"}}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
          },
          "Forbidden": {"description": "A missing right, or a cross-site request (Origin not allowed).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}},
          "NotFound": {"description": "unknown_reactor or invalid_reactor (or no such endpoint).", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}},
          "TooLarge": {"description": "The body is over limits.maxMessageBytes.", "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}},
          "RateLimited": {
            "description": "More actions than limits.actionsPerSecond for this user (or address).",
            "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
          },
          "Overloaded": {
            "description": "The server or the instance cannot take it now.",
            "headers": {"Retry-After": {"$ref": "#/components/headers/RetryAfter"}},
            "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ErrorBody"}}}
          }
        },
        "schemas": {
          "Error": {
            "type": "object",
            "required": ["code", "message"],
            "properties": {
              "code": {"type": "string", "enum": ["bad_json", "bad_request", "unknown_reactor", "invalid_reactor", "unknown_action", "invalid_action", "not_joined", "forbidden", "unauthenticated", "rate_limited", "too_many_joins", "overloaded", "internal", "history_gone"]},
              "message": {"type": "string"}
            }
          },
          "ErrorBody": {
            "type": "object",
            "required": ["error"],
            "properties": {"error": {"$ref": "#/components/schemas/Error"}, "duplicate": {"type": "boolean"}}
          },
          "Action": {
            "description": "An action name, or an object whose type names the case and whose other members are its values.",
            "oneOf": [{"type": "string"}, {"type": "object", "required": ["type"], "properties": {"type": {"type": "string"}}}]
          },
          "ActionRequest": {
            "type": "object",
            "required": ["action"],
            "properties": {"action": {"$ref": "#/components/schemas/Action"}, "id": {"type": "string", "minLength": 1, "maxLength": 64}}
          },
          "Ack": {
            "type": "object",
            "required": ["reactor", "epoch", "version", "applied"],
            "properties": {
              "reactor": {"type": "string"},
              "epoch": {"type": "string"},
              "version": {"type": "integer", "description": "The version just before the action."},
              "applied": {"type": "integer", "description": "The version once its immediate mutations are applied."},
              "duplicate": {"type": "boolean"}
            }
          },
          "BatchRequest": {
            "type": "object",
            "required": ["actions"],
            "properties": {
              "actions": {
                "type": "array",
                "maxItems": 100,
                "items": {
                  "type": "object",
                  "required": ["reactor", "action"],
                  "properties": {"reactor": {"type": "string"}, "action": {"$ref": "#/components/schemas/Action"}, "id": {"type": "string", "minLength": 1, "maxLength": 64}}
                }
              }
            }
          },
          "BatchResults": {
            "type": "object",
            "required": ["results"],
            "properties": {"results": {"type": "array", "items": {"oneOf": [{"$ref": "#/components/schemas/Ack"}, {"$ref": "#/components/schemas/ErrorBody"}]}}}
          },
          "State": {
            "type": "object",
            "required": ["reactor", "epoch", "version", "state"],
            "properties": {"reactor": {"type": "string"}, "epoch": {"type": "string"}, "version": {"type": "integer"}, "state": {"type": "object"}}
          },
          "Patches": {
            "type": "object",
            "required": ["epoch", "version", "patches"],
            "properties": {
              "epoch": {"type": "string"},
              "version": {"type": "integer"},
              "patches": {
                "type": "array",
                "items": {
                  "type": "object",
                  "required": ["version", "patch"],
                  "properties": {
                    "version": {"type": "integer"},
                    "base": {"type": "integer", "description": "Present when the patch spans several versions: it applies to this one."},
                    "patch": {"type": "array", "description": "RFC 6902 operations.", "items": {"type": "object"}}
                  }
                }
              }
            }
          },
          "HistoryGone": {
            "type": "object",
            "required": ["error", "epoch", "version"],
            "properties": {"error": {"$ref": "#/components/schemas/Error"}, "epoch": {"type": "string"}, "version": {"type": "integer"}}
          },
          "Kinds": {
            "type": "object",
            "required": ["kinds"],
            "properties": {
              "kinds": {
                "type": "object",
                "additionalProperties": {
                  "type": "object",
                  "properties": {
                    "actions": {"type": "object", "additionalProperties": {"type": "object", "additionalProperties": {"type": "string"}}},
                    "pulses": {"type": "array", "items": {"type": "string"}}
                  }
                }
              }
            }
          }
        }
      }
    }
    """#
}
