internal import CLibWebSockets

/// The request and response headers libwebsockets parses into its header table
/// (`enum lws_token_indexes`), by the names ReactorHub reads. Their C values differ
/// between lws builds, so they are read through the compiled header.
public enum LWSToken: Sendable {
    case getURI
    case headURI
    case postURI
    case putURI
    case deleteURI
    case optionsURI
    case patchURI
    case uriArguments
    case origin
    case `protocol`
    case host
    case contentLength
    case transferEncoding
    case authorization
    case accept
    case contentType
    case ifNoneMatch
    case connection
    case upgrade
    case key
    case version
    case extensions

    var index: lws_token_indexes {
        switch self {
        case .getURI: WSI_TOKEN_GET_URI
        case .headURI: WSI_TOKEN_HEAD_URI
        case .postURI: WSI_TOKEN_POST_URI
        case .putURI: WSI_TOKEN_PUT_URI
        case .deleteURI: WSI_TOKEN_DELETE_URI
        case .optionsURI: WSI_TOKEN_OPTIONS_URI
        case .patchURI: WSI_TOKEN_PATCH_URI
        case .uriArguments: WSI_TOKEN_HTTP_URI_ARGS
        case .origin: WSI_TOKEN_ORIGIN
        case .protocol: WSI_TOKEN_PROTOCOL
        case .host: WSI_TOKEN_HOST
        case .contentLength: WSI_TOKEN_HTTP_CONTENT_LENGTH
        case .transferEncoding: WSI_TOKEN_HTTP_TRANSFER_ENCODING
        case .authorization: WSI_TOKEN_HTTP_AUTHORIZATION
        case .accept: WSI_TOKEN_HTTP_ACCEPT
        case .contentType: WSI_TOKEN_HTTP_CONTENT_TYPE
        case .ifNoneMatch: WSI_TOKEN_HTTP_IF_NONE_MATCH
        case .connection: WSI_TOKEN_CONNECTION
        case .upgrade: WSI_TOKEN_UPGRADE
        case .key: WSI_TOKEN_KEY
        case .version: WSI_TOKEN_VERSION
        case .extensions: WSI_TOKEN_EXTENSIONS
        }
    }
}
