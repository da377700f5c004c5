import ReactorHubLogging

/// The logger handed to clients under test: the process-wide handler, at `error`, so
/// that the warnings a test provokes on purpose (a patch that does not apply) stay quiet.
let clientTestLogger: Logger = {
    var logger = Logger(label: "client-test")
    logger.logLevel = .error
    return logger
}()
