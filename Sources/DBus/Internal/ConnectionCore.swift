import CDBus
import Foundation
import Glibc
import Locking
import Streams

/// The libdbus connection and its event-loop thread.
///
/// Safety of `@unchecked Sendable`: after `init` returns, `raw` and every
/// `loop…` property are touched only by the event-loop thread (`run()` and the
/// libdbus callbacks it dispatches). Other threads talk to the loop only
/// through `shared`, a `Locked` (a pthread mutex, which ThreadSanitizer sees), and wake it with the eventfd `wakeFD`, which is
/// closed only with that mutex held.
final class ConnectionCore: @unchecked Sendable {
    typealias Reply = Result<[DBusValue], DBusError>

    /// What a finished call also does on the loop thread, before its caller resumes.
    enum CallHook: Sendable {
        /// Store the reply to `GetNameOwner` as the subscription's sender owner.
        case resolveOwner(subscription: UInt64)
    }

    enum Command: Sendable {
        case call(
            id: UInt64, MessageTransfer, deadline: ContinuousClock.Instant, what: String,
            CheckedContinuation<Reply, Never>, CallHook?)
        case cancel(id: UInt64)
        case send(MessageTransfer)
        case subscribe(SignalSubscription)
        case unsubscribe(id: UInt64)
    }

    /// A method this connection serves: it gets the call's arguments and
    /// returns the reply's (or throws, for an error reply). It runs on the
    /// event-loop thread, so it must return promptly.
    typealias MethodHandler = @Sendable ([DBusValue]) throws(DBusError) -> [DBusValue]

    /// A served method's address.
    struct MethodKey: Hashable {
        var path: String
        var interface: String
        var member: String
    }

    private struct Shared {
        var commands: [Command] = []
        var methods: [MethodKey: MethodHandler] = [:]
        var isOpen = true
        var closeRequested = false
        var nextID: UInt64 = 0
    }

    private enum OwnerState {
        case untracked
        case resolving
        case known(String?)
    }

    private struct ActiveSubscription {
        let subscription: SignalSubscription
        var owner: OwnerState
    }

    private final class PendingCall {
        let id: UInt64
        let pending: OpaquePointer
        let deadline: ContinuousClock.Instant
        let what: String
        let continuation: CheckedContinuation<Reply, Never>
        let hook: CallHook?

        init(
            id: UInt64, pending: OpaquePointer, deadline: ContinuousClock.Instant, what: String,
            continuation: CheckedContinuation<Reply, Never>, hook: CallHook?
        ) {
            self.id = id
            self.pending = pending
            self.deadline = deadline
            self.what = what
            self.continuation = continuation
            self.hook = hook
        }
    }

    private let raw: OpaquePointer
    let uniqueName: String
    let canPassUnixFDs: Bool
    private let wakeFD: Int32
    private let shared = Locked(Shared())

    // Event-loop thread only.
    private var loopCalls: [UInt64: PendingCall] = [:]
    private var loopCallIDs: [OpaquePointer: UInt64] = [:]
    private var loopSubscriptions: [UInt64: ActiveSubscription] = [:]
    private var loopDisconnected = false
    /// Subscriptions whose intercept took a signal since their last `endOfBurst`.
    private var loopIntercepted: Set<UInt64> = []
    /// The last sender, path, interface and member read, reused while signals repeat them.
    private var loopSender = RepeatedString()
    private var loopPath = RepeatedString()
    private var loopInterface = RepeatedString()
    private var loopMember = RepeatedString()

    /// The last value of a header field as a `String`, made again only when
    /// the field changes: a stream of notifications repeats the same four
    /// names, and each would otherwise be a new allocation per signal.
    private struct RepeatedString {
        private var value = ""

        mutating func read(_ text: UnsafePointer<CChar>?) -> String {
            guard let text else { return "" }
            let count = strlen(text)
            let same =
                count > 0 && value.utf8.count == count
                && value.utf8.withContiguousStorageIfAvailable { stored in
                    stored.baseAddress.map { memcmp($0, text, count) == 0 } ?? false
                } == true
            if !same { value = String(cString: text) }
            return value
        }
    }

    private static let threadsInitialised: Bool = dbus_threads_init_default() != 0

    /// Connects, registers with the bus (`Hello`), and starts the event loop.
    init(address: String) throws(DBusError) {
        _ = Self.threadsInitialised
        guard !address.utf8.contains(0), !address.isEmpty else {
            throw .invalidArgument("the bus address is empty or contains a NUL character")
        }
        var error = CDBus.DBusError()
        dbus_error_init(&error)
        defer { dbus_error_free(&error) }

        guard let raw = dbus_connection_open_private(address, &error) else {
            throw Self.connectionFailed(&error, "cannot connect to \(address)")
        }
        // A private connection must be closed before its last unref, and
        // must never make the process exit when the bus goes away.
        dbus_connection_set_exit_on_disconnect(raw, 0)
        guard dbus_bus_register(raw, &error) != 0 else {
            let failure = Self.connectionFailed(&error, "cannot register with the bus at \(address)")
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw failure
        }
        let wakeFD = cdbus_eventfd_open()
        guard wakeFD >= 0 else {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            throw DBusError(
                code: .connectionFailed, name: "org.freedesktop.DBus.Error.Failed",
                message: "cannot create an eventfd: errno \(errno)")
        }
        self.raw = raw
        self.wakeFD = wakeFD
        self.uniqueName = dbus_bus_get_unique_name(raw).map { String(cString: $0) } ?? ""
        self.canPassUnixFDs = dbus_connection_can_send_type(raw, TypeCode.unixFD) != 0

        // libdbus calls this when it queued something the loop must write;
        // the eventfd number travels as the user data (offset by 1, never NULL).
        dbus_connection_set_wakeup_main_function(
            raw, { data in cdbus_eventfd_signal(Int32(Int(bitPattern: data) - 1)) },
            UnsafeMutableRawPointer(bitPattern: Int(wakeFD) + 1), nil
        )
        guard
            dbus_connection_add_filter(
                raw,
                { _, message, data in
                    guard let message, let data else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
                    return Unmanaged<ConnectionCore>.fromOpaque(data).takeUnretainedValue().loopFilter(message)
                }, Unmanaged.passUnretained(self).toOpaque(), nil) != 0
        else {
            dbus_connection_close(raw)
            dbus_connection_unref(raw)
            Glibc.close(wakeFD)
            throw .outOfMemory("installing the message filter")
        }

        let thread = Thread { [self] in run() }
        thread.name = "dbus \(uniqueName)"
        thread.start()
    }

    private static func connectionFailed(_ error: inout CDBus.DBusError, _ what: String) -> DBusError {
        let name = error.name.map { String(cString: $0) } ?? "org.freedesktop.DBus.Error.Failed"
        let message = error.message.map { String(cString: $0) } ?? "unknown error"
        return DBusError(code: .connectionFailed, name: name, message: "\(what): \(message)")
    }

    // MARK: - Any thread

    var isOpen: Bool { shared.withLock { $0.isOpen && !$0.closeRequested } }

    func makeID() -> UInt64 {
        shared.withLock { state in
            state.nextID += 1
            return state.nextID
        }
    }

    /// Queues a command for the loop and wakes it; `false` when the connection is closed.
    @discardableResult
    func enqueue(_ command: Command) -> Bool {
        shared.withLock { state in
            guard state.isOpen, !state.closeRequested else { return false }
            state.commands.append(command)
            cdbus_eventfd_signal(wakeFD)
            return true
        }
    }

    /// Asks the loop to close the connection; idempotent.
    func close() {
        shared.withLock { state in
            guard state.isOpen, !state.closeRequested else { return }
            state.closeRequested = true
            cdbus_eventfd_signal(wakeFD)
        }
    }

    func unsubscribe(_ id: UInt64) {
        enqueue(.unsubscribe(id: id))
    }

    /// Sends a method call and waits for its reply, its deadline, or the
    /// task's cancellation, whichever comes first.
    func call(_ message: MessageTransfer, timeout: Duration, what: String, hook: CallHook? = nil) async -> Reply {
        let id = makeID()
        let deadline = ContinuousClock.now.advanced(by: timeout)
        return await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Reply, Never>) in
                // Checking cancellation under the lock orders this against
                // `onCancel`: either we see the cancellation here, or the
                // cancel command is queued after the call.
                let refusal: DBusError? = shared.withLock { state in
                    guard state.isOpen, !state.closeRequested else { return .disconnected() }
                    if Task.isCancelled { return .cancelled("\(what) was cancelled before it was sent") }
                    state.commands.append(.call(id: id, message, deadline: deadline, what: what, continuation, hook))
                    cdbus_eventfd_signal(wakeFD)
                    return nil
                }
                if let refusal {
                    continuation.resume(returning: .failure(refusal))
                }
            }
        } onCancel: {
            enqueue(.cancel(id: id))
        }
    }

    // MARK: - Event-loop thread

    private func run() {
        var busFD: Int32 = -1
        if dbus_connection_get_unix_fd(raw, &busFD) == 0 {
            busFD = -1
        }
        var pollFDs = [pollfd(fd: busFD, events: 0, revents: 0), pollfd(fd: wakeFD, events: Int16(POLLIN), revents: 0)]
        while true {
            let (commands, closeRequested) = shared.withLock { state in
                let commands = state.commands
                state.commands = []
                return (commands, state.closeRequested)
            }
            for command in commands {
                loopExecute(command)
            }
            if closeRequested {
                loopFinish(error: .disconnected("the connection was closed"), busLost: false)
                return
            }
            loopDispatch()
            if loopDisconnected || dbus_connection_get_is_connected(raw) == 0 {
                loopFinish(error: .disconnected("the connection to the bus was lost"), busLost: true)
                return
            }
            let timeout = loopExpireDeadlines()

            pollFDs[0].events = Int16(POLLIN)
            if dbus_connection_has_messages_to_send(raw) != 0 {
                pollFDs[0].events |= Int16(POLLOUT)
            }
            pollFDs[0].revents = 0
            pollFDs[1].revents = 0
            _ = poll(&pollFDs, nfds_t(pollFDs.count), timeout)
            if pollFDs[1].revents != 0 {
                cdbus_eventfd_drain(wakeFD)
            }
            _ = dbus_connection_read_write(raw, 0)
            loopReadAhead(busFD)
            loopDispatch()
        }
    }

    /// Reads at most this many times more before a dispatch burst.
    private static let readsAheadPerBurst = 15

    /// Reads what is already waiting on the bus socket beyond libdbus's one
    /// read (2 KiB, about a dozen notification signals), a bounded number of
    /// times: under a flood of signals, one dispatch burst then covers a few
    /// hundred, so intercepts hand them on (and wake their consumers) once
    /// per burst instead of once per dozen, and the loop polls less often.
    private func loopReadAhead(_ busFD: Int32) {
        guard busFD >= 0 else { return }
        for _ in 0..<Self.readsAheadPerBurst {
            var waiting: Int32 = 0
            guard ioctl(busFD, UInt(FIONREAD), &waiting) == 0, waiting > 0 else { return }
            _ = dbus_connection_read_write(raw, 0)
        }
    }

    private func loopDispatch() {
        while dbus_connection_dispatch(raw) == DBUS_DISPATCH_DATA_REMAINS {}
        loopEndBurst()
    }

    /// Tells the intercepts that took signals in this dispatch round that it is over.
    private func loopEndBurst() {
        guard !loopIntercepted.isEmpty else { return }
        for id in loopIntercepted {
            loopSubscriptions[id]?.subscription.endOfBurst?()
        }
        loopIntercepted.removeAll(keepingCapacity: true)
    }

    /// Fails calls whose deadline passed; returns the poll timeout in ms until the next one.
    private func loopExpireDeadlines() -> Int32 {
        let now = ContinuousClock.now
        var next: ContinuousClock.Instant?
        for call in loopCalls.values {
            if call.deadline <= now {
                loopEnd(call, cancelling: true, with: .failure(.timeout("no reply to \(call.what) in time")))
            } else if let earliest = next, earliest <= call.deadline {
                continue
            } else {
                next = call.deadline
            }
        }
        guard let next else { return 1000 }
        let (seconds, attoseconds) = (next - now).components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: min(max(milliseconds, 1), 1000))
    }

    private func loopExecute(_ command: Command) {
        switch command {
        case .call(let id, let transfer, let deadline, let what, let continuation, let hook):
            var pending: OpaquePointer?
            guard dbus_connection_send_with_reply(raw, transfer.message.raw, &pending, cdbus_timeout_infinite()) != 0
            else {
                continuation.resume(returning: .failure(.outOfMemory("sending \(what)")))
                return
            }
            guard let pending else {
                continuation.resume(returning: .failure(.disconnected()))
                return
            }
            let call = PendingCall(
                id: id, pending: pending, deadline: deadline, what: what,
                continuation: continuation, hook: hook)
            loopCalls[id] = call
            loopCallIDs[pending] = id
            let notified = dbus_pending_call_set_notify(
                pending,
                { pending, data in
                    guard let pending, let data else { return }
                    Unmanaged<ConnectionCore>.fromOpaque(data).takeUnretainedValue().loopCompleted(pending)
                }, Unmanaged.passUnretained(self).toOpaque(), nil)
            if notified == 0 {
                loopEnd(call, cancelling: true, with: .failure(.outOfMemory("waiting for \(what)")))
            } else if dbus_pending_call_get_completed(pending) != 0 {
                loopCompleted(pending)
            }
        case .cancel(let id):
            if let call = loopCalls[id] {
                loopEnd(call, cancelling: true, with: .failure(.cancelled("\(call.what) was cancelled")))
            }
        case .send(let transfer):
            _ = dbus_connection_send(raw, transfer.message.raw, nil)
        case .subscribe(let subscription):
            let owner: OwnerState
            if subscription.rule.wellKnownSender != nil {
                owner = .resolving
            } else {
                owner = .untracked
            }
            loopSubscriptions[subscription.id] = ActiveSubscription(subscription: subscription, owner: owner)
        case .unsubscribe(let id):
            guard let active = loopSubscriptions.removeValue(forKey: id) else { return }
            active.subscription.subject.finish()
            for rule in active.subscription.addedMatches.withLock({ $0 }) {
                loopSendNoReply(member: "RemoveMatch", argument: rule)
            }
        }
    }

    private func loopSendNoReply(member: String, argument: String) {
        guard
            let message = try? Message.methodCall(
                destination: DBusMatchRule.busName, path: "/org/freedesktop/DBus",
                interface: DBusMatchRule.busName, member: member)
        else { return }
        guard (try? message.append([.string(argument)])) != nil else { return }
        dbus_message_set_no_reply(message.raw, 1)
        _ = dbus_connection_send(raw, message.raw, nil)
    }

    /// Removes a call from the books, optionally cancels it at libdbus, and resumes its caller.
    private func loopEnd(_ call: PendingCall, cancelling: Bool, with result: Reply) {
        loopCalls[call.id] = nil
        loopCallIDs[call.pending] = nil
        if cancelling {
            dbus_pending_call_cancel(call.pending)
        }
        dbus_pending_call_unref(call.pending)
        if let hook = call.hook {
            loopApply(hook, result)
        }
        call.continuation.resume(returning: result)
    }

    private func loopCompleted(_ pending: OpaquePointer) {
        guard let id = loopCallIDs[pending], let call = loopCalls[id] else { return }
        let result: Reply
        if let reply = dbus_pending_call_steal_reply(pending) {
            let message = Message(taking: reply)
            if message.type == DBUS_MESSAGE_TYPE_ERROR {
                let name = message.errorName ?? "org.freedesktop.DBus.Error.Failed"
                let text = (try? message.arguments())?.first?.string ?? ""
                if dbus_connection_get_is_connected(raw) == 0 {
                    result = .failure(
                        .disconnected("the connection to the bus was lost before \(call.what) got a reply"))
                } else {
                    result = .failure(.reply(name: name, message: text))
                }
            } else {
                result = Result { () throws(DBusError) in try message.arguments() }
            }
        } else {
            result = .failure(
                DBusError(
                    code: .noReply, name: "org.freedesktop.DBus.Error.NoReply",
                    message: "no reply to \(call.what)"))
        }
        loopEnd(call, cancelling: false, with: result)
    }

    private func loopApply(_ hook: CallHook, _ result: Reply) {
        switch hook {
        case .resolveOwner(let id):
            guard loopSubscriptions[id] != nil else { return }
            switch result {
            case .success(let values):
                loopSubscriptions[id]?.owner = .known(values.first?.string)
            case .failure:
                loopSubscriptions[id]?.owner = .known(nil)
            }
        }
    }

    /// Serves `handler` for calls of `member` of `interface` at `path`.
    func serve(_ key: MethodKey, _ handler: @escaping MethodHandler) {
        shared.withLock { $0.methods[key] = handler }
    }

    /// A method call to a served method: its handler's reply (or error
    /// reply) is sent; a call to anything else is left to libdbus, which
    /// answers `UnknownMethod`.
    private func loopServe(_ call: OpaquePointer) -> DBusHandlerResult {
        let key = MethodKey(
            path: dbus_message_get_path(call).map { String(cString: $0) } ?? "",
            interface: dbus_message_get_interface(call).map { String(cString: $0) } ?? "",
            member: dbus_message_get_member(call).map { String(cString: $0) } ?? "")
        guard let handler = shared.withLock({ $0.methods[key] }) else { return DBUS_HANDLER_RESULT_NOT_YET_HANDLED }
        var reply: Message?
        do throws(DBusError) {
            let values = try handler(try Message.arguments(of: call))
            if let made = dbus_message_new_method_return(call) {
                reply = Message(taking: made)
                try reply?.append(values)
            }
        } catch {
            let name = error.code == .invalidArgument ? "org.freedesktop.DBus.Error.InvalidArgs" : error.name
            reply = dbus_message_new_error(call, name, error.message).map { Message(taking: $0) }
        }
        if let reply, dbus_message_get_no_reply(call) == 0 { _ = dbus_connection_send(raw, reply.raw, nil) }
        return DBUS_HANDLER_RESULT_HANDLED
    }

    /// Every incoming message passes here, during dispatch.
    private func loopFilter(_ raw: OpaquePointer) -> DBusHandlerResult {
        let type = dbus_message_get_type(raw)
        if type == DBUS_MESSAGE_TYPE_METHOD_CALL { return loopServe(raw) }
        guard type == DBUS_MESSAGE_TYPE_SIGNAL else {
            return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
        }
        // Read in place: libdbus holds the message for the whole dispatch.
        let sender = loopSender.read(dbus_message_get_sender(raw))
        let path = loopPath.read(dbus_message_get_path(raw))
        let interface = loopInterface.read(dbus_message_get_interface(raw))
        let member = loopMember.read(dbus_message_get_member(raw))
        if interface == "org.freedesktop.DBus.Local", member == "Disconnected",
            path == "/org/freedesktop/DBus/Local"
        {
            loopDisconnected = true
            return DBUS_HANDLER_RESULT_HANDLED
        }
        var arguments: [DBusValue]?
        func decoded() -> [DBusValue]? {
            if arguments == nil { arguments = try? Message.arguments(of: raw) }
            return arguments
        }

        // Owner changes first, so a signal from a new owner right after is accepted.
        if sender == DBusMatchRule.busName, interface == DBusMatchRule.busName, member == "NameOwnerChanged",
            let values = decoded(), values.count == 3, let name = values[0].string, let newOwner = values[2].string
        {
            for (id, active) in loopSubscriptions where active.subscription.rule.wellKnownSender == name {
                loopSubscriptions[id]?.owner = .known(newOwner.isEmpty ? nil : newOwner)
            }
        }

        let destination = dbus_message_get_destination(raw).map { String(cString: $0) }
        for (id, active) in loopSubscriptions {
            let rule = active.subscription.rule
            let owner: String?
            switch active.owner {
            case .known(let current): owner = current
            case .untracked, .resolving: owner = nil
            }
            guard
                rule.matchesHeader(
                    sender: sender, path: path, interface: interface, member: member,
                    destination: destination, owner: owner)
            else { continue }
            guard let values = decoded(), rule.matchesArguments(values) else { continue }
            let signal = DBusSignal(
                sender: sender, path: path, interface: interface, member: member,
                destination: destination, arguments: values)
            if let intercept = active.subscription.intercept, intercept(signal) {
                loopIntercepted.insert(id)
                continue
            }
            active.subscription.subject.send(signal)
        }
        return DBUS_HANDLER_RESULT_NOT_YET_HANDLED
    }

    /// Ends everything: queued and pending calls fail with `error`, streams
    /// finish (closed) or fail (bus lost), and the connection is closed.
    private func loopFinish(error: DBusError, busLost: Bool) {
        let leftover = shared.withLock { state in
            state.isOpen = false
            let commands = state.commands
            state.commands = []
            return commands
        }
        for command in leftover {
            switch command {
            case .call(_, _, _, _, let continuation, _):
                continuation.resume(returning: .failure(error))
            case .subscribe(let subscription):
                loopSubscriptions[subscription.id] = ActiveSubscription(subscription: subscription, owner: .untracked)
            case .send where !busLost:
                loopExecute(command)
            case .cancel, .send, .unsubscribe:
                break
            }
        }
        for call in Array(loopCalls.values) {
            loopEnd(call, cancelling: true, with: .failure(error))
        }
        loopEndBurst()
        for active in loopSubscriptions.values {
            if busLost {
                active.subscription.subject.fail(error)
            } else {
                active.subscription.subject.finish()
            }
        }
        loopSubscriptions = [:]
        if !busLost, dbus_connection_get_is_connected(raw) != 0 {
            dbus_connection_flush(raw)
        }
        dbus_connection_set_wakeup_main_function(raw, nil, nil, nil)
        dbus_connection_close(raw)
        dbus_connection_unref(raw)
        shared.withLock { _ in _ = Glibc.close(wakeFD) }
    }
}
