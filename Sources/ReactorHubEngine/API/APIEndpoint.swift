import Foundation
import ReactorHubProtocol

/// An endpoint of the HTTP API (API.md "Endpoints"), read from a path under `/api/v1/`.
enum APIEndpoint: Equatable {
    /// `GET /api/v1/kinds`.
    case kinds
    /// `GET /api/v1/openapi.json`.
    case openAPI
    /// `POST /api/v1/actions`: a batch.
    case batch
    /// `GET /api/v1/reactors/KIND/ID`.
    case state(ReactorAddress)
    /// `POST /api/v1/reactors/KIND/ID/actions`.
    case actions(ReactorAddress)
    /// `GET /api/v1/reactors/KIND/ID/patches?since=V&epoch=E`.
    case patches(ReactorAddress)
    /// `GET /api/v1/reactors/KIND/ID/events`: the event stream.
    case events(ReactorAddress)

    /// The path every endpoint starts with.
    static let prefix = "/api/v1/"

    /// Whether `path` is the API's (claimed even when `api.enabled` is false: it answers 404).
    static func claims(_ path: String) -> Bool {
        path == "/api/v1" || path.hasPrefix(prefix)
    }

    /// The methods the endpoint answers (its `Allow`).
    var methods: [String] {
        switch self {
        case .batch, .actions: ["POST"]
        case .events: ["GET"]
        case .kinds, .openAPI, .state, .patches: ["GET", "HEAD"]
        }
    }

    /// The endpoint of `path`, or the 404 for a path that names none (or a malformed reactor
    /// address: its ID is percent-decoded before it is checked).
    static func parse(_ path: String) -> Result<APIEndpoint, APIError> {
        guard path.hasPrefix(prefix) else { return .failure(.noEndpoint(path)) }
        let parts = path.dropFirst(prefix.count).split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        switch parts.first {
        case "kinds" where parts.count == 1: return .success(.kinds)
        case "openapi.json" where parts.count == 1: return .success(.openAPI)
        case "actions" where parts.count == 1: return .success(.batch)
        case "reactors": break
        default: return .failure(.noEndpoint(path))
        }
        let suffixes: [String: (ReactorAddress) -> APIEndpoint] = ["actions": actions, "patches": patches, "events": events]
        let make: (ReactorAddress) -> APIEndpoint
        switch parts.count {
        case 3: make = state
        case 4:
            guard let known = suffixes[parts[3]] else { return .failure(.noEndpoint(path)) }
            make = known
        default:
            return .failure(APIError(ProtocolError(
                .invalidReactor, "\(path) does not name a reactor: expected /api/v1/reactors/KIND/ID with \(ReactorAddress.ruleDescription)"
            )))
        }
        let id = parts[2].removingPercentEncoding ?? parts[2]
        guard let address = ReactorAddress(kind: parts[1], id: id) else {
            return .failure(APIError(ProtocolError(
                .invalidReactor, "reactor address '\(parts[1])/\(id)' is malformed; expected \(ReactorAddress.ruleDescription)"
            )))
        }
        return .success(make(address))
    }
}
