import ReactorHubProtocol
extension CloseCode {
    /// Whether a close frame may carry this status (RFC 6455 section 7.4 and the IANA
    /// registry): 1000–1003, 1007–1014 and 3000–4999. 1004–1006 and 1015 are reserved
    /// (1005 and 1006 describe a close without a status or without a frame, and never go
    /// on the wire), 1016–2999 are unassigned, 5000 and above do not exist.
    var isValidOnTheWire: Bool {
        switch rawValue {
        case 1000...1003, 1007...1014, 3000...4999: true
        default: false
        }
    }
}
