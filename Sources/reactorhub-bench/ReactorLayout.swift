/// How `fanout` and `raw` spread N subscribers and S senders over R reactors.
///
/// Subscriber i is in reactor i mod R (N/R each). A sender reaches its reactors through
/// *links*, one connection each (a connection of the daemon joins one reactor; a mirror
/// room is chosen by the upgrade's URL): link l, 0 ≤ l < max(R, S), is sender l mod S's
/// link to reactor l mod R. So with S ≥ R every sender has one link and every reactor S/R
/// of them; with S < R every reactor has one link and every sender R/S, which it serves
/// in turn, one action each. With R = 1 the links are the senders, as before there were
/// reactors. The action's path is `/sL` (L = the link), and the link's actions are
/// numbered on their own, so a subscriber checks the order of each link of its reactor.
struct ReactorLayout {
    let reactors: Int
    let subscribers: Int
    let senders: Int

    /// Checks that the counts divide evenly: N by R, and the larger of R and S by the other.
    init(reactors: Int, subscribers: Int, senders: Int) throws(UsageError) {
        guard subscribers % reactors == 0 else {
            throw UsageError("--subscribers (\(subscribers)) must be a multiple of --reactors (\(reactors)): subscriber i joins reactor i mod R")
        }
        guard max(reactors, senders) % min(reactors, senders) == 0 else {
            throw UsageError("--senders (\(senders)) and --reactors (\(reactors)): one must be a multiple of the other, so that every reactor has as many senders and every sender as many reactors")
        }
        self.reactors = reactors
        self.subscribers = subscribers
        self.senders = senders
    }

    /// The sending connections.
    var links: Int { max(reactors, senders) }
    var subscribersPerReactor: Int { subscribers / reactors }
    var linksPerReactor: Int { links / reactors }
    var linksPerSender: Int { links / senders }

    func reactor(ofSubscriber subscriber: Int) -> Int { subscriber % reactors }
    func reactor(ofLink link: Int) -> Int { link % reactors }
    func sender(ofLink link: Int) -> Int { link % senders }

    /// The `turn`-th link of `sender` (0 ≤ turn < linksPerSender).
    func link(ofSender sender: Int, turn: Int) -> Int { sender + senders * turn }

    /// The place of `link` among the links of its reactor (0 ≤ place < linksPerReactor).
    func place(ofLink link: Int) -> Int { link / reactors }

    /// The link of `reactor` at `place`.
    func link(ofReactor reactor: Int, place: Int) -> Int { reactor + reactors * place }
}

extension Fanout.Settings {
    /// Reactor `k`: `reactor` itself with one reactor, else `reactor-k`.
    func reactorName(_ k: Int) -> String {
        layout.reactors == 1 ? reactor : reactor + "-" + String(k)
    }

    /// The mirror room of reactor `k` (`?mirror=…`): its name without the kind, `ID-k`.
    func mirrorRoom(_ k: Int) -> String {
        let name = reactorName(k)
        guard let slash = name.firstIndex(of: "/") else { return name }
        return String(name[name.index(after: slash)...])
    }
}
