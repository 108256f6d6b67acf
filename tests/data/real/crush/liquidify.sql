CREATE TABLE messages (
    id TEXT PRIMARY KEY,
    session_id TEXT NOT NULL,
    role TEXT NOT NULL,
    parts TEXT NOT NULL default '[]',
    model TEXT,
    created_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    finished_at INTEGER, provider TEXT,  -- Unix timestamp in milliseconds
    FOREIGN KEY (session_id) REFERENCES sessions (id) ON DELETE CASCADE
);
INSERT INTO "messages" VALUES('0d1e097c-58e6-40e9-af80-d9c8f82ace30','d14e7fc7-399f-49cd-81bd-c2b6f87a1e0a','user','[{"type":"text","data":{"text":"navigate to the /Users/tuliopinheirocunha/LiqUIdify/docs/LAUNCH_CHECKLIST.md and execute the remaining tasks"}},{"type":"finish","data":{"reason":"stop","time":0}}]','',1753987978,1753987978,NULL,NULL);
INSERT INTO "messages" VALUES('43968cf2-6a12-4e49-b12c-91cd56f3ce19','d14e7fc7-399f-49cd-81bd-c2b6f87a1e0a','assistant','[{"type":"finish","data":{"reason":"error","time":1753987979,"message":"API Error","details":"POST \"https://api.x.ai/v1/chat/completions\": 400 Bad Request \"Incorrect API key provided: xa***pv. You can obtain an API key from https://console.x.ai.\""}}]','grok-4',1753987978,1753987979,1753987979,'xai');
INSERT INTO "messages" VALUES('d2bc6158-77ab-43ba-894a-67e72339ef8d','d14e7fc7-399f-49cd-81bd-c2b6f87a1e0a','user','[{"type":"text","data":{"text":"a"}},{"type":"finish","data":{"reason":"stop","time":0}}]','',1753987987,1753987987,NULL,NULL);
INSERT INTO "messages" VALUES('2cf817b7-10fd-4dac-9976-8a843e79d45e','d14e7fc7-399f-49cd-81bd-c2b6f87a1e0a','assistant','[{"type":"finish","data":{"reason":"error","time":1753987987,"message":"API Error","details":"POST \"https://api.x.ai/v1/chat/completions\": 400 Bad Request \"Incorrect API key provided: xa***pv. You can obtain an API key from https://console.x.ai.\""}}]','grok-4',1753987987,1753987987,1753987987,'xai');
INSERT INTO "messages" VALUES('16a1d99d-6422-4957-81f4-dec236dc4ca0','call_07543445','user','[{"type":"text","data":{"text":"Review the LAUNCH_CHECKLIST.md file and assess the current status of each pre-launch requirement in the project. Use available tools to check things like number of components implemented (count directories in libs/components/src/components that have a .tsx file that''s not just a story), existence and coverage of tests, run commands if possible (but remember you can''t use Bash), check for documentation files, etc. Provide a detailed report on which tasks are completed, which are partial, and which are remaining. Focus on Code Quality, Accessibility, Bundle \u0026 Performance, Security, Documentation, Testing Infrastructure, Deployment Preparation."}},{"type":"finish","data":{"reason":"stop","time":0}}]','',1753988683,1753988683,NULL,NULL);
INSERT INTO "messages" VALUES('cc60334d-810b-4674-b30a-3d5e2e79237e','call_07543445','assistant','[{"type":"finish","data":{"reason":"error","time":1753988683,"message":"API Error","details":"POST \"https://api.x.ai/v1/chat/completions\": 400 Bad Request \"Incorrect API key provided: xa***pv. You can obtain an API key from https://console.x.ai.\""}}]','x-ai/grok-4',1753988683,1753988683,1753988683,'xai');
INSERT INTO "messages" VALUES('3850cfd9-d6f5-485c-a5e1-1440ee8ebd84','dd6aa687-2527-4775-baad-d96f3f91cc8b','user','[{"type":"text","data":{"text":"hey"}},{"type":"finish","data":{"reason":"stop","time":0}}]','',1753984860,1753984860,NULL,NULL);
INSERT INTO "messages" VALUES('8eff258b-a130-4935-9f8e-92fbd32dc675','dd6aa687-2527-4775-baad-d96f3f91cc8b','assistant','[{"type":"text","data":{"text":"hey"}},{"type":"finish","data":{"reason":"end_turn","time":1753984869}}]','grok-4',1753984860,1753984869,1753984869,'xai');
CREATE TABLE sessions (
    id TEXT PRIMARY KEY,
    parent_session_id TEXT,
    title TEXT NOT NULL,
    message_count INTEGER NOT NULL DEFAULT 0 CHECK (message_count >= 0),
    prompt_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (prompt_tokens >= 0),
    completion_tokens  INTEGER NOT NULL DEFAULT 0 CHECK (completion_tokens>= 0),
    cost REAL NOT NULL DEFAULT 0.0 CHECK (cost >= 0.0),
    updated_at INTEGER NOT NULL,  -- Unix timestamp in milliseconds
    created_at INTEGER NOT NULL   -- Unix timestamp in milliseconds
, summary_message_id TEXT);
INSERT INTO "sessions" VALUES('d14e7fc7-399f-49cd-81bd-c2b6f87a1e0a',NULL,'New Session',4,0,0,0.0,1753987987,1753987978,NULL);
INSERT INTO "sessions" VALUES('call_07543445','800cecb8-2e69-4b34-874c-f9641d3822cd','New Agent Session',2,0,0,0.0,1753988683,1753988683,NULL);
INSERT INTO "sessions" VALUES('dd6aa687-2527-4775-baad-d96f3f91cc8b',NULL,'Hey Greeting',2,14147,1,0.042456,1753984869,1753984860,NULL);
