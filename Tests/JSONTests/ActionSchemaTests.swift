import Testing
import ReactorHubJSON

@Suite struct ActionSchemaTests {
    private func schema<Action: Decodable>(_ type: Action.Type) -> String {
        ActionSchema(describing: type).jsonValue.description
    }

    @Test func describesCasesWithoutValues() {
        #expect(schema(CounterAction.self) == #"{"increase":{},"decrease":{}}"#)
        #expect(schema(RefreshAction.self) == #"{"refresh":{}}"#)
    }

    @Test func describesLabeledMembersWithTheirJSONTypes() {
        #expect(schema(WeatherAction.self) == #"{"searchCityWeather":{"city":"string"}}"#)
        #expect(schema(TodoAction.self) == #"{"add":{"title":"string"},"toggle":{"id":"string"},"rename":{"id":"string","title":"string"},"remove":{"id":"string"},"move":{"from":"integer","to":"integer"},"clearCompleted":{}}"#)
    }

    @Test func jsonValueMembersAreAnyEvenWhenOptional() {
        #expect(schema(DocAction.self) == #"{"set":{"path":"string","value":"any"},"remove":{"path":"string"},"patch":{"ops":"array"},"emit":{"name":"string","value":"any"}}"#)
    }

    @Test func describesUnlabeledOptionalNumericAndNestedMembers() {
        #expect(schema(MixedAction.self) == #"{"note":{"value":"string"},"pair":{"_0":"integer","_1":"string"},"scale":{"factor":"number"},"flag":{"on":"boolean","label":"string?","count":"integer?"},"place":{"at":"object","tags":"array"},"level":{"value":"string"},"mark":{"rank":"integer?"}}"#)
    }

    @Test func listsCaseNamesInDeclarationOrder() {
        #expect(ActionSchema.caseNames(of: TodoAction.self) == ["add", "toggle", "rename", "remove", "move", "clearCompleted"])
        let described = ActionSchema(describing: TodoAction.self)
        #expect(described.caseNames == ActionSchema.caseNames(of: TodoAction.self))
        #expect(described.case(named: "rename")?.members.map(\.description) == ["id (string)", "title (string)"])
        #expect(described.case(named: "jump") == nil)
    }

    @Test func typesItCannotDescribeGiveAnEmptySchemaInsteadOfACrash() {
        #expect(schema(HandWritten.self) == "{}")
        #expect(schema(RawAction.self) == "{}")
        #expect(schema(String.self) == "{}")
        #expect(schema(Point.self) == "{}")
        #expect(schema([Int].self) == "{}")
        #expect(schema(JSONValue.self) == "{}")
    }
}
