import ReactorHubJSON
public import Reactor

/// What a `RemoteReactor` shows for this client's own actions before the server answers
/// (CLIENTS.md "Prediction"): a pure function from a state and an action to the state the
/// action leads to, run on the confirmed state and every action still pending, in sending order.
///
/// A kind written with ReactorHub's `Reactor` protocol predicts with its own code
/// (`reactor(_:)`): the same `mutate` and `reduce` the server runs, shared through a package
/// that both the app and the server depend on. Its `State` must be `Codable`: the client holds
/// states as the server's JSON, decodes the state to predict from, and encodes the prediction
/// back (pulses left out, as the server leaves them out; a prediction never fires a pulse).
///
/// Returning nil or throwing means "no prediction": the action is still pending and counted,
/// the shown state just does not change for it. A predictor must not keep state of its own
/// or touch the outside world: it runs again on every patch while the action is pending.
public struct RemotePredictor<State: Sendable, Action: Sendable>: Sendable {
    /// The prediction on the wire form of states.
    let predictJSON: @Sendable (JSONValue, Action) -> JSONValue?

    /// A predictor on JSON states.
    private init(predictingJSON predict: @escaping @Sendable (JSONValue, Action) -> JSONValue?) {
        self.predictJSON = predict
    }
}

extension RemotePredictor where State: Codable {
    /// A predictor from a function of typed states: `predict(state, action)` returns the state
    /// to show, or nil (or throws) for no prediction.
    public init(_ predict: @escaping @Sendable (State, Action) throws -> State?) {
        self.init(predictingJSON: { json, action in
            guard let state = try? StateCoding<State>.decode(json), let predicted = try? predict(state, action) else {
                return nil
            }
            return try? StateCoding<State>.encode(predicted)
        })
    }

    /// Predicts with the kind's own code: `reactor`'s immediate mutations
    /// (`ImmediatePredictor`), then `reduce`; the effects after them (delays, network
    /// calls) never run on the client. `reactor` is the predictor's own instance (make one
    /// for it, with whatever its init needs on a client: its later effects never run, so a
    /// use case that calls a server is not called); no `ReactorRuntime` may run it. An action
    /// its `mutate` refuses is not predicted (the server will answer). `sender` is who the
    /// server will see (`Reactor.mutate(action:from:)`): the app's own user, for a kind that
    /// signs what it is sent.
    public static func reactor<R: Reactor>(_ reactor: R, sender: Sender? = nil) -> RemotePredictor
    where R.State == State, R.Action == Action {
        let predictor = ImmediatePredictor(reactor: reactor)
        return RemotePredictor { state, action in
            try predictor.predict(action, from: state, sender: sender)
        }
    }
}

/// A state between JSON and its type, as a predictor needs it: decoded without pulses (the
/// server's JSON has none) and encoded with them left out, as the server encodes it.
enum StateCoding<State: Codable> {
    static func decode(_ json: JSONValue) throws -> State {
        if let state = json as? State { return state }
        return try JSONValueDecoder().decode(State.self, from: json)
    }

    static func encode(_ state: State) throws -> JSONValue {
        if let json = state as? JSONValue { return json }
        return try JSONValueEncoder(userInfo: [PulseRecorder.userInfoKey: PulseRecorder()]).encode(state)
    }
}
