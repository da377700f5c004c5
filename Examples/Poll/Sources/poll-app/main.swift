import Foundation
import PollApp
import PollKit
import ReactorHubClient
import ReactorHubLogging

// poll-app URL ID vote OPTION VOTER | open QUESTION OPTION… | close
// Sends one action and prints the poll as shown at once (predicted) and once confirmed.
let arguments = Array(CommandLine.arguments.dropFirst())
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: poll-app URL ID (vote OPTION VOTER | open QUESTION OPTION... | close)\n".utf8))
    exit(2)
}
let action: PollReactor.Action
switch arguments[2] {
case "vote" where arguments.count == 5 && Int(arguments[3]) != nil:
    action = .vote(option: Int(arguments[3])!, voter: arguments[4])
case "open" where arguments.count >= 5:
    action = .open(question: arguments[3], options: Array(arguments[4...]))
case "close":
    action = .close
default:
    FileHandle.standardError.write(Data("unknown action \(arguments[2...])\n".utf8))
    exit(2)
}

func describe(_ state: PollReactor.State) -> String {
    let tally = zip(state.options, state.votes).map { "\($0) \($1)" }.joined(separator: ", ")
    return "\(state.question ?? "(no poll)") [\(tally)] open: \(state.isOpen), tallying: \(state.isTallying)"
}

do {
    let hub = try await HubClient.connect(arguments[0], logger: Logger(label: "poll-app"))
    let poll = try await PollClient.join(hub, poll: arguments[1])
    let revisions = poll.revisions()
    async let answer = poll.dispatch(action)
    for await revision in revisions where revision.isPredicted {
        print("shown at once:  \(describe(poll.state)) (server at v\(revision.version))")
        break
    }
    do {
        let ack = try await answer
        for await revision in revisions where !revision.isPredicted {
            print("confirmed (v\(revision.version), applied at v\(ack.applied)): \(describe(poll.confirmedState))")
            break
        }
    } catch {
        print("refused, rolled back: \(error)")
        print("shown now:      \(describe(poll.state))")
    }
    await hub.close()
} catch {
    FileHandle.standardError.write(Data("error \(error)\n".utf8))
    exit(1)
}
