package import Reactor
package import ReactorHubJSON
package import ReactorHubProtocol

/// A kind's own rule for joins (`Reactor.refusal(of:)`), asked after the rights allowed a
/// join, with the view's committed state decoded only when the rule reads it.
package enum JoinRule {
    /// The `forbidden` refusal of `sender`'s join, or nil when `reactor` allows it.
    package static func refusal<R: Reactor>(
        by reactor: R, of sender: Sender, state: @escaping @Sendable () -> JSONValue
    ) -> ProtocolError? where R.State: Decodable {
        let request = JoinRequest<R.State>(member: sender) {
            try? JSONValueDecoder().decode(R.State.self, from: state())
        }
        return reactor.refusal(of: request).map { ProtocolError(.forbidden, $0) }
    }
}
